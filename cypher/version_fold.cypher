// version_fold: an app version known only by an alias (an import made before any device reported
// a version: "sha256:…", "unknown"), or named only by a quorum of contributors, becomes the
// device-reported version $version whose screens it matched: its screens and traces move there,
// its names are recorded as aliases of the version ($recorded: the name its import gave it, and
// its own aliases), and its own App node goes (with the contributors' claims: a trusted device
// named it). The screens the device showed ($screen_ids) are labelled with the version; the others
// keep the alias in `versions` (nothing says this version still shows them, so recall re-plans a
// step there). The mirror of version_add_alias, for the other order.
MATCH (alias:App {package: $package, version: $alias}), (known:App {package: $package, version: $version})
SET known.aliases = coalesce(known.aliases, [])
                    + [x IN coalesce(alias.aliases, []) + $recorded WHERE NOT x IN coalesce(known.aliases, [])]
WITH alias, known
CALL (alias, known) {
  MATCH (alias)-[h:HAS_SCREEN]->(s:Screen)
  // a link that moves keeps its provenance (a purge deletes one only contributions made)
  MERGE (known)-[moved:HAS_SCREEN]->(s)
  ON CREATE SET moved.crowd_only = h.crowd_only, moved.crowd_keys = h.crowd_keys
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
