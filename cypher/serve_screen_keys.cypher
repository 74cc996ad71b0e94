// serve_screen_keys: the screens of some packages with the structural keys of their elements,
// to locate a dumped screen by element overlap when its exact screen id is not in memory.
MATCH (s:Screen)-[:HAS_ELEMENT]->(e:Element)
WHERE s.package IN $packages
RETURN s.id AS screen_id, s.package AS package, s.app_version AS app_version, s.activity AS activity,
       collect(e.key) AS keys
