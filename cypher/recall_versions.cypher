// recall_versions: per package, its explored versions, newest first as refresh_stale orders
// them (highest versionCode, then the latest explored): the first is the current version,
// which recalled steps and the app document are read against. A version is one only with a screen
// link the trust predicate admits (cypher/__init__.py): one key's version of its own is none.
MATCH (a:App)<-[:OF_APP]-(:Trace)
WHERE a.package IN $packages
WITH DISTINCT a
CALL (a) {
  MATCH (a)-[h:HAS_SCREEN]->(s:Screen)
  WHERE trusted(h) AND trusted(s)
  RETURN s.id AS shown
  LIMIT 1
}
RETURN a.package AS package, a.version AS app_version
ORDER BY package, coalesce(a.version_code, -1) DESC,
         coalesce(a.explored, datetime('1970-01-01T00:00:00Z')) DESC, app_version DESC
