// tenant_share_screens: the screens of $packages a tenant's keys ($prefix "NAME/") back, backed by its shared
// voice ($voice "tenant:NAME") too: one public contributor (ingest/tenants.py).
MATCH (s:Screen)
WHERE s.package IN $packages AND any(k IN coalesce(s.crowd_keys, []) WHERE k STARTS WITH $prefix)
  AND NOT $voice IN s.crowd_keys
SET s.crowd_keys = s.crowd_keys + $voice
RETURN count(s) AS shared
