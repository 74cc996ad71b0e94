// app_stats: per app version, what the memory holds. States and screens count
// everything the app's traces saw (launcher and system screens included).
MATCH (a:App)<-[:OF_APP]-(:Trace)
WHERE $package IS NULL OR a.package = $package
WITH DISTINCT a
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
  RETURN count(t) AS transitions, coalesce(sum(t.observations), 0) AS observations
}
CALL (a) {
  OPTIONAL MATCH (k:Task {package: a.package})
  RETURN count(k) AS tasks
}
RETURN a.package AS package, a.version AS version, traces, states, screens, elements, transitions,
       observations, tasks
ORDER BY package, version
