// planner_layer_controls: of the elements $ids (the controls of the public's edges back into an app from other
// apps' screens: planner_side_transitions), those the reading tenant reads otherwise than the public
// (graph/graphrows.py): only its own keys back them, or their texts are its keys' (as planner_layer_elements).
// Same columns as `elements`.
MATCH (e:Element)
WHERE e.id IN $ids AND trusted(e) AND (NOT public(e) OR coalesce(e.text_owner, '') STARTS WITH $viewer)
MATCH (s:Screen)-[:HAS_ELEMENT]->(e)
RETURN e.id AS id, s.id AS screen_id, s.package AS package, coalesce(e.key, '') AS key,
       coalesce(e.class_name, '') AS class_name, coalesce(e.resource_id, '') AS resource_id,
       CASE WHEN shown(e) THEN coalesce(e.text, '') ELSE '' END AS text,
       CASE WHEN shown(e) THEN coalesce(e.content_desc, '') ELSE '' END AS content_desc, e.bounds AS bounds,
       coalesce(e.flags, []) AS flags, CASE WHEN shown(e) THEN coalesce(e.locators, []) ELSE [l IN coalesce(e.locators, []) WHERE NOT (l CONTAINS '@text' OR l CONTAINS '@content-desc')] END AS locators, coalesce(e.risky, false) AS risky,
       coalesce(e.simulated_task, '') AS simulated_task
