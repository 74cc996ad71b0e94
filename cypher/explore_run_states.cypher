// explore_run_states: the distinct concrete states these traces saw (any package).
MATCH (t:Trace)-[:SAW]->(st:State)
WHERE t.id IN $trace_ids
RETURN DISTINCT st.state_id AS state_id, st.package AS package, st.screen_id AS screen_id
