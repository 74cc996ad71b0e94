// planner_opens: the screen that acting on an element most often opened (another screen than its own).
MATCH (s:Screen {id: $screen_id})-[t:TRANSITION {element_id: $element_id}]->(d:Screen)
WHERE d.id <> s.id
RETURN d.id AS screen_id, t.observations AS observations
ORDER BY observations DESC, screen_id
LIMIT 1
