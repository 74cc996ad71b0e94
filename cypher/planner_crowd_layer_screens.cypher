// planner_crowd_layer_screens: planner_crowd_screens' look-alikes that its reader (a tenant) titles with one of
// $titles by its own keys' titles (a screen's layer, merge_screens), which the title index (the public's titles)
// does not hold: screens of other apps than $packages, with the taps seen on them. Read for a tenant's view alone
// (agent/crowd.py), so the public's read is the index's; its own titled screens are few, and all are read. Same
// columns and order.
MATCH (s:Screen)
WHERE s.layer_title_keys IS NOT NULL AND NOT s.package IN $packages
  AND own_title(s) AND trusted(s) AND title(s) IN [wanted IN $titles | wanted.title]
OPTIONAL MATCH (s)-[t:TRANSITION {action: 'tap'}]->(b:Screen)
WHERE b.package = s.package AND b.id <> s.id
  AND trusted(t)
RETURN s.id AS id, s.package AS package, title(s) AS title, coalesce(t.element_id, '') AS element_id,
       b.id AS target, coalesce(title(b), '') AS target_title
ORDER BY id, element_id, target
