// planner_crowd_screens: screens of other apps than $packages titled as one of $titles, with the taps
// seen on them (element, the screen each led to and its title): look-alikes that may lend the planned
// app's screens what their own exploration never saw (agent/crowd.py). A screen only contributions
// reported is held out until enough contributors back it, as for elements, and so is a tap only
// contributions report (graph/votes.usable): one key must not lend an effect to every app.
MATCH (s:Screen)
WHERE s.title IN $titles AND NOT s.package IN $packages
  AND trusted(s)
OPTIONAL MATCH (s)-[t:TRANSITION {action: 'tap'}]->(b:Screen)
WHERE b.package = s.package AND b.id <> s.id
  AND trusted(t)
RETURN s.id AS id, s.package AS package, s.title AS title, coalesce(t.element_id, '') AS element_id,
       b.id AS target, coalesce(b.title, '') AS target_title
ORDER BY id, element_id, target
