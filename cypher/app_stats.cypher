// app_stats: per app version, what the memory holds. States and screens count
// everything the app's traces saw (launcher and system screens included); transitions
// touch the version's screens (shared by the versions that saw them), `stale` of them
// not re-observed in the app's newest explored version; aliases are other names of it; `claimed`:
// the versions contributors' devices reported for it, one entry per key (graph/version_claims.py).
// With $every false (what any key reads), only the versions with a screen link the trust predicate admits
// (cypher/__init__.py): an app or a version one key alone reported is not listed.
MATCH (a:App)<-[:OF_APP]-(:Trace)
WHERE $package IS NULL OR a.package = $package
WITH DISTINCT a
CALL (a) {
  OPTIONAL MATCH (a)-[h:HAS_SCREEN]->(s:Screen)
  WHERE trusted(h) AND trusted(s)
  RETURN count(s) > 0 AS shown
}
WITH a
WHERE $every OR shown
CALL (a) {
  MATCH (a)<-[:OF_APP]-(t:Trace)
  RETURN count(t) AS traces
}
CALL (a) {
  MATCH (a)<-[:OF_APP]-(:Trace)-[:SAW]->(st:State)
  RETURN count(DISTINCT st) AS states, count(DISTINCT st.screen_id) AS screens
}
CALL (a) {
  MATCH (a)-[:HAS_SCREEN]->(:Screen)-[:HAS_ELEMENT]->(e:Element)
  RETURN count(e) AS elements
}
CALL (a) {
  MATCH (a)-[:HAS_SCREEN]->(s:Screen)
  OPTIONAL MATCH (s)-[t:TRANSITION]-(:Screen)
  WITH DISTINCT t
  RETURN count(t) AS transitions, coalesce(sum(t.observations), 0) AS observations,
         sum(CASE WHEN t.stale THEN 1 ELSE 0 END) AS stale
}
CALL (a) {
  OPTIONAL MATCH (k:Task {package: a.package})
  RETURN count(k) AS tasks
}
RETURN a.package AS package, a.version AS version, a.version_code AS version_code,
       coalesce(a.aliases, []) AS aliases, traces, states, screens, elements, transitions, observations, stale,
       tasks, [c IN coalesce(a.claims, []) | substring(c, size(split(c, ' ')[0]) + 1)] AS claimed
ORDER BY package, version
