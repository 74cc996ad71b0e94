// migrate_state_texts: how many states were written before states kept the texts they showed (graph/migrate.py
// `states_without_texts`).
MATCH (st:State)
WHERE st.texts IS NULL
RETURN count(st) AS states
