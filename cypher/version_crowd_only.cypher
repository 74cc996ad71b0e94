// version_crowd_only: versions only contributions named (no crawl, import or own run wrote under
// them), with their app's screens: a graph written before contributions' versions were claims
// (graph/versions.py join_crowd_versions).
MATCH (a:App)
WHERE a.version <> '' AND EXISTS { (a)<-[:OF_APP]-(:Trace) }
  AND NOT EXISTS { MATCH (a)<-[:OF_APP]-(t:Trace) WHERE coalesce(t.contributor, '') = '' }
MATCH (a)-[:HAS_SCREEN]->(s:Screen)
WHERE s.package = a.package
RETURN a.package AS package, a.version AS version, collect(s.id) AS screen_ids
