// semantic_transitions: the UTG edges leaving screens of $packages (all when
// null): which element, acted on how, leads from which screen to which.
MATCH (a:Screen)-[t:TRANSITION]->(b:Screen)
WHERE ($packages IS NULL OR a.package IN $packages) AND t.element_id IS NOT NULL AND t.element_id <> ''
RETURN a.id AS source, b.id AS target, t.element_id AS element_id, t.action AS action
ORDER BY source, element_id, target
