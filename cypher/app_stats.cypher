// app_stats: per app version, what the memory holds. States and screens count
// everything the app's traces saw (launcher and system screens included); transitions
// touch the version's screens (shared by the versions that saw them), `stale` of them
// not re-observed in the app's newest explored version; aliases are other names of it; `claimed`:
// the versions contributors' devices reported for it, one entry per key (graph/version_claims.py).
// With $every false (what any key reads), only the versions with a screen link the trust predicate admits
// (cypher/__init__.py): an app or a version one key alone reported is not listed, and every count is of what
// the predicate admits (traces, the states they saw, elements, transitions, tasks); `observations` are then
// those crawls and imports made (a contribution's raw counts on a trusted edge are its key's word).
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
  WHERE $every OR trusted(t)
  RETURN count(t) AS traces
}
CALL (a) {
  MATCH (a)<-[:OF_APP]-(t:Trace)-[:SAW]->(st:State)
  WHERE $every OR trusted(t)
  RETURN count(DISTINCT st) AS states, count(DISTINCT st.screen_id) AS screens
}
CALL (a) {
  MATCH (a)-[h:HAS_SCREEN]->(s:Screen)-[:HAS_ELEMENT]->(e:Element)
  WHERE $every OR (trusted(h) AND trusted(s) AND trusted(e))
  RETURN count(e) AS elements
}
CALL (a) {
  MATCH (a)-[h:HAS_SCREEN]->(s:Screen)
  WHERE $every OR (trusted(h) AND trusted(s))
  OPTIONAL MATCH (s)-[t:TRANSITION]-(o:Screen)
  WHERE $every OR (trusted(t) AND trusted(o))
  WITH DISTINCT t
  RETURN count(t) AS transitions,
         coalesce(sum(CASE WHEN $every THEN t.observations
                           ELSE t.observations - coalesce(t.contributed_successes, 0)
                                - coalesce(t.contributed_failures, 0) END), 0) AS observations,
         sum(CASE WHEN t.stale THEN 1 ELSE 0 END) AS stale
}
CALL (a) {
  OPTIONAL MATCH (k:Task {package: a.package})
  WHERE $every OR trusted(k)
  RETURN count(k) AS tasks
}
RETURN a.package AS package, a.version AS version, a.version_code AS version_code,
       coalesce(a.aliases, []) AS aliases, traces, states, screens, elements, transitions, observations, stale,
       tasks, [c IN coalesce(a.claims, []) | substring(c, size(split(c, ' ')[0]) + 1)] AS claimed
ORDER BY package, version
