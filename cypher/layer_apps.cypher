// layer_apps: the apps with an element that the reading tenant's own keys back at its quorum ($viewer
// "TENANT/", $viewer_quorum; none for the public reader): whose own points a tenant's every-app element
// index adds (agent/planner.py). A screen only its keys reported has such elements too.
MATCH (s:Screen)-[:HAS_ELEMENT]->(e:Element)
WHERE $viewer <> '' AND size([k IN coalesce(e.crowd_keys, []) WHERE k STARTS WITH $viewer]) >= $viewer_quorum
RETURN DISTINCT s.package AS package
ORDER BY package
