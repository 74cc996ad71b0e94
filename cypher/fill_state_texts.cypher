// fill_state_texts: a chunk written before states kept the texts they showed, ingested again: its states get
// them (merge_states `texts`, `text_boxes`); nothing else of the chunk is written again (chunk_seen).
UNWIND $rows AS r
MATCH (st:State {id: r.id})
WHERE st.texts IS NULL
SET st.texts = r.texts, st.text_boxes = r.text_boxes
