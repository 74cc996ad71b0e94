// refresh_stale: staleness of an app's UTG edges. The newest explored version is the app
// version with traces of a crawl or an import and the highest versionCode (then the latest
// explored). An edge is stale when it was not observed in that version but was in an older
// version of known code; an edge seen only under an unknown (alias) version cannot be judged
// and is not. Observed: by a crawl or an import (`versions`), or by a quorum of contributors
// (`agreed_versions`, edge_crowd): one key re-observing an edge neither clears nor sets it.
// Why it starts from the package's screens (index) and reads only their own edges: the
// caller holds this package's write lock, not the others'. A scan over every screen met
// screens that another package's writer had not committed yet, and ArcadeDB (no snapshot
// reads) then failed the whole chunk with EntityNotFound. Writers of an edge hold the locks
// of both its ends' packages, so what this reads is settled. Only a flag that changes is
// written (fewer page conflicts with the other writers).
MATCH (a:App {package: $package})
WHERE EXISTS { MATCH (a)<-[:OF_APP]-(tr:Trace) WHERE coalesce(tr.contributor, '') = '' }
WITH a ORDER BY coalesce(a.version_code, -1) DESC, coalesce(a.explored, datetime('1970-01-01T00:00:00Z')) DESC
WITH collect(a) AS apps
WITH apps[0].version AS newest,
     [x IN apps WHERE x.version_code IS NOT NULL AND x.version_code < coalesce(apps[0].version_code, -1) | x.version]
     AS older
MATCH (:Screen {package: $package})-[t:TRANSITION]-()
WITH DISTINCT newest, older, t
WITH newest, older, t, coalesce(t.versions, []) + coalesce(t.agreed_versions, []) AS seen
WITH newest, t, NOT newest IN seen AND any(v IN seen WHERE v IN older) AS stale
WHERE t.stale IS NULL OR t.stale <> stale
SET t.stale = stale
RETURN newest, count(t) AS changed, sum(CASE WHEN stale THEN 1 ELSE 0 END) AS stale
