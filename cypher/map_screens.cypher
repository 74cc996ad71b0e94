// map_screens: the screens of an app (every version) for its map, each with the bounds,
// classes and labels of its elements (the thumbnail is drawn from them); only what the trust
// predicate admits (cypher/__init__.py): screens, their links to app versions, elements.
// An element's texts, bounds and flags as its reader reads them (text(e), ...: cypher/__init__.py FIELDS).
MATCH (a:App {package: $package})-[h:HAS_SCREEN]->(s:Screen)
WHERE trusted(h) AND trusted(s)
OPTIONAL MATCH (s)-[:HAS_ELEMENT]->(e:Element)
WHERE trusted(e)
WITH a, s, collect({bounds: bounds(e), class_name: e.class_name, label: label(e)}) AS elements
RETURN s.id AS id, a.version AS version, s.activity AS activity, title(s) AS title,
       s.summary IS NOT NULL AS summarised, elements
ORDER BY id
