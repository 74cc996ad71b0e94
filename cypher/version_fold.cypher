// version_fold: an app version known only by an alias (an import made before any device reported
// a version: "sha256:…", "unknown") becomes the device-reported version $version whose screens it
// matched: its screens and traces move there, the alias is recorded on the version, and the
// alias's own App node goes. The screens the device showed ($screen_ids) are labelled with the
// version; the others keep the alias in `versions` (nothing says this version still shows them,
// so recall re-plans a step there). The mirror of version_add_alias, for the other order.
MATCH (alias:App {package: $package, version: $alias}), (known:App {package: $package, version: $version})
SET known.aliases = CASE WHEN $alias IN coalesce(known.aliases, []) THEN known.aliases
                         ELSE coalesce(known.aliases, []) + $alias END
WITH alias, known
CALL (alias, known) {
  MATCH (alias)-[:HAS_SCREEN]->(s:Screen)
  MERGE (known)-[:HAS_SCREEN]->(s)
  WITH s, s.id IN $screen_ids AS shown
  SET s.versions = CASE WHEN shown
                        THEN [v IN coalesce(s.versions, []) WHERE v <> $alias]
                             + CASE WHEN $version IN coalesce(s.versions, []) THEN [] ELSE [$version] END
                        ELSE s.versions END,
      s.app_version = CASE WHEN shown AND s.app_version = $alias THEN $version ELSE s.app_version END
  RETURN count(s) AS screens
}
CALL (alias, known) {
  MATCH (alias)<-[:OF_APP]-(tr:Trace)
  MERGE (tr)-[:OF_APP]->(known)
  SET tr.app_version = $version
  RETURN count(tr) AS traces
}
DETACH DELETE alias
RETURN screens, traces
