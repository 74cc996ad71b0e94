// hints_edges: where each element of a screen leads (other screens than its own), with
// the element's label and locators: what a step-wise agent's hints are made of.
MATCH (s:Screen {id: $screen_id})-[t:TRANSITION]->(d:Screen)
WHERE d.id <> s.id AND t.element_id IS NOT NULL AND t.element_id <> ''
MATCH (s)-[:HAS_ELEMENT]->(e:Element {id: t.element_id})
RETURN e.id AS element_id, e.label AS label, e.locators AS locators, t.action AS action,
       d.id AS target, d.title AS target_title, t.observations AS observations
ORDER BY observations DESC, element_id, target
