// analyst_apps_overview: every studied app version with the size of its memory:
// screens, elements, transitions (stale ones apart), traces and demonstrated tasks.
MATCH (a:App)
WHERE a.version <> ''
OPTIONAL MATCH (a)-[:HAS_SCREEN]->(s:Screen)
WITH a, collect(s) AS screens
RETURN a.package AS package, a.version AS version, size(screens) AS screens,
       reduce(n = 0, s IN screens | n + COUNT { (s)-[:HAS_ELEMENT]->() }) AS elements,
       reduce(n = 0, s IN screens | n + COUNT { (s)-[:TRANSITION]->() }) AS transitions,
       reduce(n = 0, s IN screens | n + COUNT { (s)-[t:TRANSITION]->() WHERE t.stale = true }) AS stale,
       COUNT { (a)<-[:OF_APP]-(:Trace) } AS traces,
       COUNT { (k:Task) WHERE k.package = a.package } AS tasks
ORDER BY package, version
