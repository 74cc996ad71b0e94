// analyst_neighbourhood: where a screen leads and where it is reached from, one hop,
// with the element label of each transition.
MATCH (s:Screen {id: $screen_id})
CALL (s) {
  MATCH (s)-[t:TRANSITION]->(n:Screen)
  OPTIONAL MATCH (e:Element {id: t.element_id})
  RETURN 'out' AS direction, n.id AS other, n.title AS other_title, t.action AS action,
         e.label AS element, t.observations AS observations
  UNION ALL
  MATCH (n:Screen)-[t:TRANSITION]->(s)
  OPTIONAL MATCH (e:Element {id: t.element_id})
  RETURN 'in' AS direction, n.id AS other, n.title AS other_title, t.action AS action,
         e.label AS element, t.observations AS observations
}
RETURN direction, other, other_title, action, element, observations
ORDER BY direction, observations DESC
