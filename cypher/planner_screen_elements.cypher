// planner_screen_elements: the elements of one screen, for finishing a dialog (its inputs and confirm button).
MATCH (s:Screen {id: $screen_id})-[:HAS_ELEMENT]->(e:Element)
RETURN e.id AS id, s.id AS screen_id, s.package AS package, e.key AS key, e.class_name AS class_name,
       e.resource_id AS resource_id, e.text AS text, e.content_desc AS content_desc, e.label AS label,
       e.bounds AS bounds, e.flags AS flags, e.locators AS locators, coalesce(e.risky, false) AS risky
ORDER BY e.key
