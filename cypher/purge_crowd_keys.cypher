// purge_crowd_keys: take one contributor off the provenance lists of screens, elements, edges and
// app-to-screen links (HAS_SCREEN) that only contributions reported (purge_crowd_* then delete those
// nobody is left behind), and its version claims off screens (judged again: crowd_trust_screens). Each kind in its own subquery: a contributor with none of one kind still
// leaves the others.
CALL () {
  MATCH (s:Screen)
  WHERE $contributor IN coalesce(s.crowd_keys, [])
  SET s.crowd_keys = [k IN s.crowd_keys WHERE k <> $contributor],
      s.crowd_versions = [c IN coalesce(s.crowd_versions, []) WHERE NOT c STARTS WITH $contributor + ' ']
  RETURN count(s) AS screens
}
CALL () {
  MATCH (e:Element)
  WHERE $contributor IN coalesce(e.crowd_keys, [])
  SET e.crowd_keys = [k IN e.crowd_keys WHERE k <> $contributor]
  RETURN count(e) AS elements
}
CALL () {
  MATCH (:Screen)-[t:TRANSITION]->(:Screen)
  WHERE $contributor IN coalesce(t.crowd_keys, [])
  SET t.crowd_keys = [k IN t.crowd_keys WHERE k <> $contributor]
  RETURN count(t) AS edges
}
CALL () {
  MATCH (:App)-[h:HAS_SCREEN]->(:Screen)
  WHERE $contributor IN coalesce(h.crowd_keys, [])
  SET h.crowd_keys = [k IN h.crowd_keys WHERE k <> $contributor]
  RETURN count(h) AS app_screens
}
RETURN screens, elements, edges, app_screens
