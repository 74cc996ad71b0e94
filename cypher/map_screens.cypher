// map_screens: the screens of an app (every version) for its map, each with the bounds,
// classes and labels of its elements (the thumbnail is drawn from them).
MATCH (a:App {package: $package})-[:HAS_SCREEN]->(s:Screen)
OPTIONAL MATCH (s)-[:HAS_ELEMENT]->(e:Element)
WITH a, s, collect({bounds: e.bounds, class_name: e.class_name, label: e.label}) AS elements
RETURN s.id AS id, a.version AS version, s.activity AS activity, s.title AS title,
       s.summary IS NOT NULL AS summarised, elements
ORDER BY id
