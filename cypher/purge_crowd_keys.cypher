// purge_crowd_keys: take one contributor off the provenance lists of screens, elements, edges and
// app-to-screen links (HAS_SCREEN) that only contributions reported (purge_crowd_* then delete those
// nobody is left behind).
MATCH (s:Screen)
WHERE $contributor IN coalesce(s.crowd_keys, [])
SET s.crowd_keys = [k IN s.crowd_keys WHERE k <> $contributor]
WITH count(s) AS screens
MATCH (e:Element)
WHERE $contributor IN coalesce(e.crowd_keys, [])
SET e.crowd_keys = [k IN e.crowd_keys WHERE k <> $contributor]
WITH screens, count(e) AS elements
MATCH (:Screen)-[t:TRANSITION]->(:Screen)
WHERE $contributor IN coalesce(t.crowd_keys, [])
SET t.crowd_keys = [k IN t.crowd_keys WHERE k <> $contributor]
WITH screens, elements, count(t) AS edges
MATCH (:App)-[h:HAS_SCREEN]->(:Screen)
WHERE $contributor IN coalesce(h.crowd_keys, [])
SET h.crowd_keys = [k IN h.crowd_keys WHERE k <> $contributor]
RETURN screens, elements, edges, count(h) AS app_screens
