// semantic_transitions: the UTG edges leaving screens of $packages (all when
// null): which element, acted on how, leads from which screen to which. An edge only
// contributions report is left out until enough contributors back it (edge_crowd), as plans
// leave it out: else one key's forged edge reaches the summaries and the element index
// (`leads_to`, which ranks targets) at the next `appmem summarize`.
MATCH (a:Screen)-[t:TRANSITION]->(b:Screen)
WHERE ($packages IS NULL OR a.package IN $packages) AND t.element_id IS NOT NULL AND t.element_id <> ''
  AND trusted(t)
RETURN a.id AS source, b.id AS target, t.element_id AS element_id, t.action AS action
ORDER BY source, element_id, target
