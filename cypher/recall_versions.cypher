// recall_versions: per package, its versions in the graph, most recently seen first
// (the first is the current version: recalled steps are checked against it).
MATCH (s:Screen)
WHERE s.package IN $packages
RETURN s.package AS package, s.app_version AS app_version, max(s.last_seen) AS last_seen
ORDER BY package, last_seen DESC, app_version DESC
