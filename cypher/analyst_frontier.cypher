// analyst_frontier: the unexplored frontier of an app: screens with interactive
// elements that no recorded transition has acted on yet, most untried first.
MATCH (:App {package: $package})-[:HAS_SCREEN]->(s:Screen)-[:HAS_ELEMENT]->(e:Element)
WHERE NOT EXISTS { (s)-[t:TRANSITION]->() WHERE t.element_id = e.id }
WITH s, collect(e.label) AS untried
RETURN s.id AS screen, s.activity AS activity, s.title AS title, size(untried) AS untried_elements,
       untried[0..10] AS examples
ORDER BY untried_elements DESC, title
