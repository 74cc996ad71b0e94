// layer_tasks: the demonstrations of $packages (all when null) that the reading tenant's own keys sent
// ($viewer "TENANT/"; none for the public reader) and the shared collections lack (not public: a shared
// demonstration the public quorum backs is embedded there by `summarize`), with their steps in order:
// what a tenant's view embeds for its own recall and search (semantic/layers.py).
MATCH (k:Task)
WHERE $viewer <> '' AND ($packages IS NULL OR k.package IN $packages)
  AND coalesce(k.contributor, '') STARTS WITH $viewer AND NOT public(k)
OPTIONAL MATCH (k)-[st:STEP]->(e:Element)
WITH k, st, e ORDER BY st.index
RETURN k.id AS id, coalesce(k.description, '') AS description, k.package AS package,
       [x IN collect({index: st.index, element_id: e.id, screen_id: e.screen_id}) WHERE x.element_id IS NOT NULL] AS steps
ORDER BY id
