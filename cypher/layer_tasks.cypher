// layer_tasks: the demonstrations of $packages that the reading tenant's own keys sent
// ($viewer "TENANT/"; none for the public reader) and the shared collections lack (not public: a shared
// demonstration the public quorum backs is embedded there by `summarize`), with their steps (in no order:
// semantic/layers.py `task_rows` orders them by index): what a tenant's view embeds for its own recall and
// search (semantic/layers.py). The steps are a pattern comprehension: an OPTIONAL MATCH, ordered and collected
// per task, cost the server a third more. Found by the package index (a `$packages IS NULL OR` filter made the
// server read every app's demonstrations): of every app, layer_tasks_every.
MATCH (k:Task)
WHERE $viewer <> '' AND k.package IN $packages
  AND coalesce(k.contributor, '') STARTS WITH $viewer AND NOT public(k)
RETURN k.id AS id, coalesce(k.description, '') AS description, k.package AS package,
       [(k)-[st:STEP]->(e:Element) | {index: st.index, element_id: e.id, screen_id: e.screen_id}] AS steps
ORDER BY id
