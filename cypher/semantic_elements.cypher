// semantic_elements: the elements of the screens of $packages (all when null),
// with what the deterministic summarizer reads (and the simulated task written last time).
MATCH (s:Screen)-[:HAS_ELEMENT]->(e:Element)
WHERE $packages IS NULL OR s.package IN $packages
RETURN e.id AS id, s.id AS screen_id, coalesce(e.class_name, '') AS class_name,
       coalesce(e.resource_id, '') AS resource_id, coalesce(e.text, '') AS text,
       coalesce(e.content_desc, '') AS content_desc, coalesce(e.flags, []) AS flags,
       coalesce(e.simulated_task, '') AS simulated_task
ORDER BY id
