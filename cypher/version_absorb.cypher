// version_absorb: a version only contributions named ($crowd) joins the version $version that an
// import (of unknown version) gives the same screens: its traces and screens move there, and the
// name each of its contributors reported is kept as their claim ("key version") on $version, which
// is created when the import has not been written yet. A contribution never names an import: a
// quorum of claims does (graph/version_claims.py); nor does it add a version to a screen a crawl or an
// import saw (only a screen only contributions reported is labelled with the version it joins).
MATCH (crowd:App {package: $package, version: $crowd})
MERGE (a:App {id: $id})
ON CREATE SET a.package = $package, a.version = $version, a.aliases = []
WITH crowd, a
CALL (crowd, a) {
  MATCH (crowd)-[h:HAS_SCREEN]->(s:Screen)
  // a link that moves keeps its provenance (a purge deletes one only contributions made)
  MERGE (a)-[moved:HAS_SCREEN]->(s)
  ON CREATE SET moved.crowd_only = h.crowd_only, moved.crowd_keys = h.crowd_keys
  SET s.versions = CASE WHEN coalesce(s.crowd_only, false)
                        THEN [v IN coalesce(s.versions, []) WHERE v <> $crowd]
                             + CASE WHEN $version IN coalesce(s.versions, []) THEN [] ELSE [$version] END
                        ELSE s.versions END,
      s.app_version = CASE WHEN s.app_version = $crowd THEN $version ELSE s.app_version END
  RETURN count(s) AS screens
}
CALL (crowd, a) {
  MATCH (crowd)<-[:OF_APP]-(tr:Trace)
  MERGE (tr)-[:OF_APP]->(a)
  SET tr.app_version = $version
  RETURN [k IN collect(DISTINCT tr.contributor) WHERE coalesce(k, '') <> '' | k + ' ' + $crowd] AS claims
}
SET a.claims = coalesce(a.claims, []) + [c IN claims WHERE NOT c IN coalesce(a.claims, [])]
DETACH DELETE crowd
RETURN screens, size(claims) AS claims
