// planner_screen: a screen by id, to check that a plan's start screen exists.
MATCH (s:Screen {id: $screen_id})
RETURN s.id AS id, s.package AS package, s.title AS title
