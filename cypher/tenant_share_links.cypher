// tenant_share_links: the app-to-screen links to $packages' screens a tenant's keys ($prefix "NAME/") made,
// backed by its shared voice ($voice "tenant:NAME") too.
MATCH (:App)-[h:HAS_SCREEN]->(s:Screen)
WHERE s.package IN $packages AND any(k IN coalesce(h.crowd_keys, []) WHERE k STARTS WITH $prefix)
  AND NOT $voice IN h.crowd_keys
SET h.crowd_keys = h.crowd_keys + $voice
RETURN count(h) AS shared
