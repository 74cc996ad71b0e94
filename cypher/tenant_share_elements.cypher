// tenant_share_elements: the elements of $packages' screens a tenant's keys ($prefix "NAME/") back, backed by
// its shared voice ($voice "tenant:NAME") too.
MATCH (s:Screen)-[:HAS_ELEMENT]->(e:Element)
WHERE s.package IN $packages AND any(k IN coalesce(e.crowd_keys, []) WHERE k STARTS WITH $prefix)
  AND NOT $voice IN e.crowd_keys
SET e.crowd_keys = e.crowd_keys + $voice
RETURN count(e) AS shared
