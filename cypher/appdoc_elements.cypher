// appdoc_elements: an app version's screens and their elements with what acting on each
// opens (screens other than its own) and how often that was seen: the app document.
MATCH (s:Screen {package: $package, app_version: $version})-[:HAS_ELEMENT]->(e:Element)
OPTIONAL MATCH (s)-[t:TRANSITION {element_id: e.id}]->(d:Screen)
WHERE d.id <> s.id
RETURN s.id AS screen_id, s.title AS title, s.summary AS summary, e.id AS element_id, e.label AS label,
       e.simulated_task AS description, e.locators AS locators, e.flags AS flags,
       [x IN collect({screen_id: d.id, title: d.title, observations: t.observations}) WHERE x.screen_id IS NOT NULL]
       AS opens
ORDER BY screen_id, element_id
