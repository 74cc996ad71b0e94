// contributor_packages: the apps of the screens `contributor` backs (crowd_keys): where a purge of a voice
// that sent no trace of its own (a tenant's shared voice, ingest/tenants.py) judges the crowd again.
MATCH (s:Screen)
WHERE $contributor IN coalesce(s.crowd_keys, [])
RETURN DISTINCT s.package AS package
