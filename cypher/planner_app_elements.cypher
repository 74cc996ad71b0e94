// planner_app_elements: every element of the screens of $packages with what a plan step needs:
// labels, flags (checked state of toggles), locators, and the `risky` flag the summarizer wrote.
MATCH (s:Screen)-[:HAS_ELEMENT]->(e:Element)
WHERE s.package IN $packages
RETURN e.id AS id, s.id AS screen_id, e.key AS key, coalesce(e.class_name, '') AS class_name,
       coalesce(e.resource_id, '') AS resource_id, coalesce(e.text, '') AS text,
       coalesce(e.content_desc, '') AS content_desc, e.bounds AS bounds, coalesce(e.flags, []) AS flags,
       coalesce(e.locators, []) AS locators, coalesce(e.risky, false) AS risky
ORDER BY screen_id, key
