// merge_states: concrete observations (DroidBot's state_str), linked to their
// Screen and to the Trace that saw them (provenance).
UNWIND $rows AS r
MATCH (s:Screen {id: r.screen_id}), (t:Trace {id: $trace_id})
MERGE (st:State {id: r.id})
ON CREATE SET st.state_id = r.state_id, st.screen_id = r.screen_id, st.package = r.package,
              st.observed_at = datetime(r.observed_at)
MERGE (st)-[:OF_SCREEN]->(s)
MERGE (t)-[:SAW]->(st)
