// planner_elements: what a plan step needs to act on an element: labels, flags and locators.
MATCH (s:Screen)-[:HAS_ELEMENT]->(e:Element)
WHERE e.id IN $ids
RETURN e.id AS id, s.id AS screen_id, s.package AS package, e.key AS key, e.class_name AS class_name,
       e.resource_id AS resource_id, e.text AS text, e.content_desc AS content_desc, e.label AS label,
       e.bounds AS bounds, e.flags AS flags, e.locators AS locators, coalesce(e.risky, false) AS risky
