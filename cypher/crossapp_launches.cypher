// crossapp_launches: the observed ways into an app: start_app edges whose target is one
// of the app's screens, with the screen they start from (the launcher, or any screen
// a run relaunched the app from) and how often each was seen; the edges and screens the trust
// predicate admits (cypher/__init__.py): one key's launch is no way in for others.
MATCH (l:Screen)-[t:TRANSITION {action: 'start_app'}]->(s:Screen)
WHERE t.detail = $package AND s.package = $package AND trusted(t) AND trusted(l) AND trusted(s)
RETURN l.id AS source, l.package AS source_package, s.id AS entry, t.observations AS observations
ORDER BY observations DESC, source, entry
