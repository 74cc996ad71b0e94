// serve_app_versions: the app versions in memory, per package (to compute a dumped screen's id).
MATCH (a:App)
WHERE $package IS NULL OR a.package = $package
RETURN a.package AS package, collect(DISTINCT a.version) AS versions
ORDER BY package
