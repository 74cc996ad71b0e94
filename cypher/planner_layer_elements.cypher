// planner_layer_elements: the elements the reading tenant reads otherwise than the public (graph/graphrows.py)
// on the screens of $packages it reads: those on its own screens, those only its own keys back (trusted(e), not
// public(e)), and those its own keys reported otherwise than the public (own_report(e): their texts, bounds and
// flags read from its layer, cypher/__init__.py FIELDS).
// Same columns as `elements`.
MATCH (s:Screen)-[:HAS_ELEMENT]->(e:Element)
WHERE s.package IN $packages AND trusted(s) AND trusted(e)
  AND (NOT public(s) OR NOT public(e) OR own_report(e))
WITH s, e, report(e) AS r
RETURN e.id AS id, s.id AS screen_id, s.package AS package, coalesce(e.key, '') AS key,
       coalesce(e.class_name, '') AS class_name, coalesce(e.resource_id, '') AS resource_id,
       text(e, r) AS text,
       content_desc(e, r) AS content_desc, bounds(e, r) AS bounds,
       flags(e, r) AS flags, locators(e, r) AS locators, coalesce(e.risky, false) AS risky,
       coalesce(e.simulated_task, '') AS simulated_task
