// refresh_stale: staleness of an app's UTG edges. The newest explored version is the app
// version with traces and the highest versionCode (then the latest explored). An edge is
// stale when it was not observed in that version but was in an older version of known
// code; an edge seen only under an unknown (alias) version cannot be judged and is not.
MATCH (a:App {package: $package})
WHERE EXISTS { (a)<-[:OF_APP]-(:Trace) }
WITH a ORDER BY coalesce(a.version_code, -1) DESC, coalesce(a.explored, datetime('1970-01-01T00:00:00Z')) DESC
WITH collect(a) AS apps
WITH apps[0].version AS newest,
     [x IN apps WHERE x.version_code IS NOT NULL AND x.version_code < coalesce(apps[0].version_code, -1) | x.version]
     AS older
MATCH (s:Screen)-[t:TRANSITION]->(b:Screen)
WHERE s.package = $package OR b.package = $package
SET t.stale = NOT newest IN coalesce(t.versions, []) AND any(v IN coalesce(t.versions, []) WHERE v IN older)
RETURN newest, count(t) AS edges, sum(CASE WHEN t.stale THEN 1 ELSE 0 END) AS stale
