// version_add_alias: record another name of an app version (the APK's sha256, "unknown"
// of an import) so later imports under that name attach at once.
MATCH (a:App {package: $package, version: $version})
SET a.aliases = CASE WHEN $alias IN coalesce(a.aliases, []) THEN a.aliases ELSE coalesce(a.aliases, []) + $alias END
