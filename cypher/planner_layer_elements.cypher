// planner_layer_elements: the elements the reading tenant reads otherwise than the public (graph/graphrows.py)
// on the screens of $packages it reads: those on its own screens, those only its own keys back (trusted(e), not
// public(e)), and those whose texts its own keys reported (`text_owner`: shown(e) for it, not for the public).
// Same columns as `elements`.
MATCH (s:Screen)-[:HAS_ELEMENT]->(e:Element)
WHERE s.package IN $packages AND trusted(s) AND trusted(e)
  AND (NOT public(s) OR NOT public(e) OR coalesce(e.text_owner, '') STARTS WITH $viewer)
RETURN e.id AS id, s.id AS screen_id, s.package AS package, coalesce(e.key, '') AS key,
       coalesce(e.class_name, '') AS class_name, coalesce(e.resource_id, '') AS resource_id,
       CASE WHEN shown(e) THEN coalesce(e.text, '') ELSE '' END AS text,
       CASE WHEN shown(e) THEN coalesce(e.content_desc, '') ELSE '' END AS content_desc, e.bounds AS bounds,
       coalesce(e.flags, []) AS flags, CASE WHEN shown(e) THEN coalesce(e.locators, []) ELSE [l IN coalesce(e.locators, []) WHERE NOT (l CONTAINS '@text' OR l CONTAINS '@content-desc')] END AS locators, coalesce(e.risky, false) AS risky,
       coalesce(e.simulated_task, '') AS simulated_task
