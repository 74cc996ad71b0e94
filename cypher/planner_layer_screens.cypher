// planner_layer_screens: the screens of $packages that only the reading tenant's own keys back (trusted(s), not
// public(s)): its layer's, read over the public's planner_app_screens (graph/graphrows.py). Same columns.
MATCH (s:Screen)
WHERE s.package IN $packages AND trusted(s) AND NOT public(s)
RETURN s.id AS id, s.package AS package, coalesce(s.activity, '') AS activity,
       coalesce(s.signature, '') AS signature, coalesce(s.title, '') AS title
ORDER BY id
