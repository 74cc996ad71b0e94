// planner_layer_controls: of the elements $ids (the controls of the public's edges back into an app from other
// apps' screens: planner_side_transitions), those the reading tenant reads otherwise than the public
// (graph/graphrows.py): only its own keys back them, or its keys reported them otherwise than the public (as
// planner_layer_elements).
// Same columns as `elements`.
MATCH (e:Element)
WHERE e.id IN $ids AND trusted(e) AND (NOT public(e) OR own_report(e))
MATCH (s:Screen)-[:HAS_ELEMENT]->(e)
WITH s, e, report(e) AS r
RETURN e.id AS id, s.id AS screen_id, s.package AS package, coalesce(e.key, '') AS key,
       coalesce(e.class_name, '') AS class_name, coalesce(e.resource_id, '') AS resource_id,
       text(e, r) AS text,
       content_desc(e, r) AS content_desc, bounds(e, r) AS bounds,
       flags(e, r) AS flags, locators(e, r) AS locators, coalesce(e.risky, false) AS risky,
       coalesce(e.simulated_task, '') AS simulated_task
