// version_candidates: the versions of an app in the memory, their aliases, and how many of
// the given screens each was seen with: where an import of unknown version attaches.
MATCH (a:App {package: $package})
OPTIONAL MATCH (a)-[:HAS_SCREEN]->(s:Screen)
WHERE s.id IN $screen_ids
RETURN a.version AS version, coalesce(a.aliases, []) AS aliases, a.version_code AS version_code,
       count(s) AS matched
