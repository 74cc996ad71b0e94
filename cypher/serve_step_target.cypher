// serve_step_target: where acting on an element of a screen most often led (a plan's last step
// names no next screen; the runtime checks that it got there).
MATCH (:Screen {id: $screen_id})-[t:TRANSITION]->(b:Screen)
WHERE t.element_id = $element_id AND t.action = $action
RETURN b.id AS screen_id, t.observations AS observations
ORDER BY observations DESC, screen_id
LIMIT 1
