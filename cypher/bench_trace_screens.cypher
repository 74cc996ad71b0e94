// bench_trace_screens: the screens a trace saw (its states' screens), with a title hint;
// bench/merge.py compares what crawls under other profiles and versions saw with an import.
MATCH (t:Trace {id: $trace_id})-[:SAW]->(st:State)-[:OF_SCREEN]->(s:Screen)
RETURN DISTINCT st.state_id AS state_id, s.id AS screen_id, s.package AS package, s.title AS title,
       s.activity AS activity
