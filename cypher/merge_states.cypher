// merge_states: concrete observations (DroidBot's state_str), linked to their
// Screen and to the Trace that saw them (provenance). Each keeps the texts it showed
// (graph/screens.py `shown_texts`: `texts`, and their boxes four numbers each in `text_boxes`);
// a state written before states kept them gets them when it is seen again.
UNWIND $rows AS r
MATCH (s:Screen {id: r.screen_id}), (t:Trace {id: $trace_id})
MERGE (st:State {id: r.id})
ON CREATE SET st.state_id = r.state_id, st.screen_id = r.screen_id, st.package = r.package,
              st.observed_at = datetime(r.observed_at)
SET st.texts = coalesce(st.texts, r.texts), st.text_boxes = coalesce(st.text_boxes, r.text_boxes)
MERGE (st)-[:OF_SCREEN]->(s)
MERGE (t)-[:SAW]->(st)
