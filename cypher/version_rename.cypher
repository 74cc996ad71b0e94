// version_rename: an app version takes the name $new_name, which a quorum of contributors reported
// ($trusted_name: the name its import gave it, kept as an alias), or takes its import's name back
// when that quorum is gone ($trusted_name null). Its screens and traces follow.
MATCH (a:App {package: $package, version: $version})
SET a.version = $new_name, a.id = $id, a.trusted_name = $trusted_name,
    a.aliases = [x IN coalesce(a.aliases, []) WHERE x <> $new_name]
                + CASE WHEN $trusted_name IS NULL OR $trusted_name IN coalesce(a.aliases, []) THEN []
                       ELSE [$trusted_name] END
WITH a
CALL (a) {
  MATCH (a)-[:HAS_SCREEN]->(s:Screen)
  SET s.versions = [v IN coalesce(s.versions, []) WHERE v <> $version AND v <> $new_name]
                   + CASE WHEN $version IN coalesce(s.versions, []) OR $new_name IN coalesce(s.versions, [])
                          THEN [$new_name] ELSE [] END,
      s.app_version = CASE WHEN s.app_version = $version THEN $new_name ELSE s.app_version END
  RETURN count(s) AS screens
}
CALL (a) {
  MATCH (a)<-[:OF_APP]-(tr:Trace)
  SET tr.app_version = $new_name
  RETURN count(tr) AS traces
}
RETURN screens, traces
