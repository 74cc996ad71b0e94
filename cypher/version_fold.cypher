// version_fold: an app version known only by an alias (an import made before any device reported
// a version: "sha256:…", "unknown") becomes the device-reported version $version whose screens it
// matched: its screens, edges and traces move there, the alias is recorded on the version, and
// the alias's own App node goes. The mirror of version_add_alias, for the other order.
MATCH (alias:App {package: $package, version: $alias}), (known:App {package: $package, version: $version})
SET known.aliases = CASE WHEN $alias IN coalesce(known.aliases, []) THEN known.aliases
                         ELSE coalesce(known.aliases, []) + $alias END
WITH alias, known
CALL (alias, known) {
  MATCH (alias)-[:HAS_SCREEN]->(s:Screen)
  MERGE (known)-[:HAS_SCREEN]->(s)
  SET s.versions = [v IN coalesce(s.versions, []) WHERE v <> $alias]
                   + CASE WHEN $version IN coalesce(s.versions, []) THEN [] ELSE [$version] END,
      s.app_version = CASE WHEN s.app_version = $alias THEN $version ELSE s.app_version END
  WITH s
  OPTIONAL MATCH (s)-[t:TRANSITION]->(:Screen)
  WHERE $alias IN coalesce(t.versions, [])
  SET t.versions = [v IN t.versions WHERE v <> $alias]
                   + CASE WHEN $version IN t.versions THEN [] ELSE [$version] END
  RETURN count(DISTINCT s) AS screens
}
CALL (alias, known) {
  MATCH (alias)<-[:OF_APP]-(tr:Trace)
  MERGE (tr)-[:OF_APP]->(known)
  SET tr.app_version = $version
  RETURN count(tr) AS traces
}
DETACH DELETE alias
RETURN screens, traces
