// planner_app_screens: every screen of $packages, for the planner's in-memory copy of an app's UTG
// and for locating an agent's screen (signature for the exact match, activity for the similar one).
MATCH (s:Screen)
WHERE s.package IN $packages
RETURN s.id AS id, s.package AS package, coalesce(s.activity, '') AS activity,
       coalesce(s.signature, '') AS signature, coalesce(s.title, '') AS title
ORDER BY id
