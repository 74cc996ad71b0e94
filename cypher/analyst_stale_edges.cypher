// analyst_stale_edges: transitions not re-observed in the newest explored version of
// their app (TRANSITION.stale), with the versions they were seen in and when last.
MATCH (s:Screen)-[t:TRANSITION]->(n:Screen)
WHERE t.stale = true AND ($package IS NULL OR s.package = $package)
OPTIONAL MATCH (e:Element {id: t.element_id})
RETURN s.package AS package, s.title AS from_title, t.action AS action, e.label AS element,
       n.title AS to_title, t.versions AS versions, t.last_seen AS last_seen, t.observations AS observations
ORDER BY package, last_seen
LIMIT 500
