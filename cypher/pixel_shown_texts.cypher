// pixel_shown_texts: what each state of $packages' screens showed (merge_states
// `texts`, `text_boxes`), for locating a screenshot (agent/pixels.py): each state once, read through the
// traces that saw it as every read is (a state only an untrusted contribution saw is not read). States
// written before states kept their texts have none and are left out.
MATCH (t:Trace)-[:SAW]->(st:State)-[:OF_SCREEN]->(s:Screen)
WHERE s.package IN $packages AND st.texts IS NOT NULL AND trusted(s) AND trusted(t)
WITH DISTINCT s, st
RETURN s.id AS screen_id, st.texts AS texts, st.text_boxes AS boxes
ORDER BY screen_id, st.id
