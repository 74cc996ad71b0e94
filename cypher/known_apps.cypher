// known_apps: the app packages its reader may read: those with a screen the trust predicate admits
// (cypher/__init__.py: a crawl's, an import's, a quorum's, or the reading tenant's own). Plans, documents, the
// map and short names (`calendar`) resolve among these only: an app one key or one tenant reported is
// neither listed to others nor makes their short names ambiguous. (semantic_packages lists every App: for
// summarize and migrate.)
MATCH (a:App)-[:HAS_SCREEN]->(s:Screen)
WHERE trusted(s)
RETURN DISTINCT a.package AS package
ORDER BY package
