// version_candidates: the versions of an app in the memory, their aliases, and how many of
// the given screens each was seen with: where an import of unknown version attaches.
// `trusted`: a crawl, an import or one's own run wrote under it (else only contributions did);
// `trusted_name`: the name those gave it, when a quorum of contributors renamed it (claims:
// "key version", what each contributor's device reported). Version "" is no version: the App
// node of a foreign package that another app's trace reached.
MATCH (a:App {package: $package})
WHERE a.version <> ''
OPTIONAL MATCH (a)-[:HAS_SCREEN]->(s:Screen)
WHERE s.id IN $screen_ids
WITH a, count(s) AS matched
RETURN a.version AS version, coalesce(a.aliases, []) AS aliases, a.version_code AS version_code, matched,
       EXISTS { MATCH (a)<-[:OF_APP]-(t:Trace) WHERE coalesce(t.contributor, '') = '' } AS trusted,
       a.trusted_name AS trusted_name, coalesce(a.claims, []) AS claims
