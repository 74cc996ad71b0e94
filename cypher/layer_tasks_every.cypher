// layer_tasks_every: layer_tasks of every app (the reading tenant's own demonstrations, for its recall and search
// over every app): every demonstration is read. Same columns.
MATCH (k:Task)
WHERE $viewer <> ''
  AND coalesce(k.contributor, '') STARTS WITH $viewer AND NOT public(k)
RETURN k.id AS id, coalesce(k.description, '') AS description, k.package AS package,
       [(k)-[st:STEP]->(e:Element) | {index: st.index, element_id: e.id, screen_id: e.screen_id}] AS steps
ORDER BY id
