// planner_screen_package: the package of a screen, to load its app's UTG for a route.
MATCH (s:Screen {id: $screen_id})
RETURN s.package AS package
