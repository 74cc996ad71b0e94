// analyst_version_diff: screens that differ between two versions of an app: a screen
// (its content-free signature) present in one version and not in the other.
MATCH (a:App {package: $package})-[:HAS_SCREEN]->(s:Screen)
WHERE a.version IN [$old, $new]
WITH s.signature AS signature, s.activity AS activity, collect(DISTINCT a.version) AS versions,
     collect(s.title)[0] AS title
WHERE size(versions) = 1
RETURN CASE WHEN versions[0] = $new THEN 'added' ELSE 'removed' END AS change, activity, title, signature
ORDER BY change, activity, title
