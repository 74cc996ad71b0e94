// planner_crowd_screens: screens of other apps than $packages with a title of $titles, with the taps
// seen on them (element, the screen each led to and its title): look-alikes that may lend the planned
// app's screens what their own exploration never saw (agent/crowd.py). $titles: [{title, limit}]: of
// each title, the screens of whole apps, the app whose screen of it showed the most controls first (a
// screen seen after a change shows its Save too), until `limit` screens are read, so that a title many
// apps share ("Settings") costs a first plan what the planned app's own screens cost, whatever the
// memory's size. A screen only contributions reported is held out until enough contributors back it, as
// for elements, and so are elements and taps only contributions report (graph/votes.usable): one key
// must not lend an effect to every app. The title index holds the public's titles only (merge_screens): a
// screen its reader titles otherwise (its own tenant's title, title(s)) is not found by the public's title, and
// a tenant's own titles are found by planner_crowd_layer_screens.
UNWIND $titles AS wanted
MATCH (s:Screen {title: wanted.title})
WHERE NOT s.package IN $packages
  AND trusted(s) AND title(s) = wanted.title
OPTIONAL MATCH (s)-[:HAS_ELEMENT]->(e:Element)
WHERE trusted(e)
WITH wanted, s, count(e) AS controls
ORDER BY s.id
WITH wanted, s.package AS package, collect(s) AS screens, max(controls) AS most
ORDER BY most DESC, package
WITH wanted, collect(screens) AS apps
UNWIND reduce(kept = [], app IN apps | CASE WHEN size(kept) >= wanted.limit THEN kept ELSE kept + app END) AS s
OPTIONAL MATCH (s)-[t:TRANSITION {action: 'tap'}]->(b:Screen)
WHERE b.package = s.package AND b.id <> s.id
  AND trusted(t)
RETURN s.id AS id, s.package AS package, title(s) AS title, coalesce(t.element_id, '') AS element_id,
       b.id AS target, coalesce(title(b), '') AS target_title
ORDER BY id, element_id, target
