// analyst_app_screens: an app's screens with their activity, title, element count
// and how often their outgoing transitions were observed.
MATCH (a:App {package: $package})-[:HAS_SCREEN]->(s:Screen)
OPTIONAL MATCH (s)-[t:TRANSITION]->()
WITH s, count(t) AS out_edges, coalesce(sum(t.observations), 0) AS observed
RETURN s.id AS screen, s.activity AS activity, s.title AS title, out_edges, observed,
       COUNT { (s)-[:HAS_ELEMENT]->() } AS elements
ORDER BY observed DESC, title
