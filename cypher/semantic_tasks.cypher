// semantic_tasks: demonstrations of $packages (all when null) with their steps
// in order (element and screen ids) and the hash of what was last embedded. A contributed
// demonstration only once enough contributors did the same task (task_crowd), as recall_tasks
// reads them: else one key's many copies of a task fill recall's nearest candidates.
MATCH (k:Task)
WHERE ($packages IS NULL OR k.package IN $packages)
  AND trusted(k)
OPTIONAL MATCH (k)-[st:STEP]->(e:Element)
WITH k, st, e ORDER BY st.index
RETURN k.id AS id, coalesce(k.description, '') AS description, k.package AS package,
       k.embed_hash AS embed_hash,
       [x IN collect({index: st.index, element_id: e.id, screen_id: e.screen_id}) WHERE x.element_id IS NOT NULL] AS steps
ORDER BY id
