// tenant_share_edges: the edges leaving $packages' screens a tenant's keys ($prefix "NAME/") back, backed by
// its shared voice ($voice "tenant:NAME") too.
MATCH (a:Screen)-[t:TRANSITION]->(:Screen)
WHERE a.package IN $packages AND any(k IN coalesce(t.crowd_keys, []) WHERE k STARTS WITH $prefix)
  AND NOT $voice IN t.crowd_keys
SET t.crowd_keys = t.crowd_keys + $voice
RETURN count(t) AS shared
