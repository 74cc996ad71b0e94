// planner_layer_screens: the screens of $packages that only the reading tenant's own keys back (trusted(s), not
// public(s)), and those its own keys titled otherwise than the public (own_title(s): their title read from the
// screen's layer, cypher/__init__.py): its layer's, read over the public's planner_app_screens
// (graph/graphrows.py, which gives the public's edges into them its title too). Besides, of the other apps'
// screens $targets (those the public's edges leaving $packages enter), those its own keys titled otherwise: the
// title those edges' rows then carry. Same columns.
MATCH (s:Screen)
WHERE s.package IN $packages AND trusted(s) AND (NOT public(s) OR own_title(s))
RETURN s.id AS id, s.package AS package, coalesce(s.activity, '') AS activity,
       coalesce(s.signature, '') AS signature, coalesce(title(s), '') AS title
UNION
MATCH (s:Screen)
WHERE s.id IN $targets AND own_title(s)
RETURN s.id AS id, s.package AS package, coalesce(s.activity, '') AS activity,
       coalesce(s.signature, '') AS signature, coalesce(title(s), '') AS title
