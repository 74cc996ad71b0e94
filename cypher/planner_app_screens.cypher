// planner_app_screens: the screens of $packages, for the planner's in-memory copy of an app's UTG
// and for locating an agent's screen (signature for the exact match, activity for the similar one).
// A screen only contributions reported is held out until enough contributors back it (crowd_trusted,
// graph/votes.py), as its edges and elements are: one key's dump of a known screen, sent without its
// activity, must not become the screen every agent's dump is located on.
MATCH (s:Screen)
WHERE s.package IN $packages
  AND trusted(s)
RETURN s.id AS id, s.package AS package, coalesce(s.activity, '') AS activity,
       coalesce(s.signature, '') AS signature, coalesce(title(s), '') AS title
ORDER BY id
