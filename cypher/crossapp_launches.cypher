// crossapp_launches: the observed ways into an app: start_app edges whose target is one
// of the app's screens, with the screen they start from (the launcher, or any screen
// a run relaunched the app from) and how often each was seen; only those its reader may read (the one
// trust predicate, cypher/__init__.py: one key's, or another tenant's, launch is no way in).
MATCH (l:Screen)-[t:TRANSITION {action: 'start_app'}]->(s:Screen)
WHERE t.detail = $package AND s.package = $package AND trusted(t)
RETURN l.id AS source, l.package AS source_package, s.id AS entry, t.observations AS observations
ORDER BY observations DESC, source, entry
