// purge_untrusted_ids: the screens, elements and tasks of the apps $packages that the trust predicate
// (cypher/__init__.py, the public's) no longer admits: after a purge took a contributor off them, their
// vectors are deleted (`appmem summarize` embeds only what the predicate admits).
CALL () {
  MATCH (s:Screen)
  WHERE s.package IN $packages AND NOT public(s)
  RETURN collect(s.id) AS screens
}
CALL () {
  MATCH (s:Screen)-[:HAS_ELEMENT]->(e:Element)
  WHERE s.package IN $packages AND NOT (public(s) AND public(e))
  RETURN collect(e.id) AS elements
}
CALL () {
  MATCH (k:Task)
  WHERE k.package IN $packages AND NOT public(k)
  RETURN collect(k.id) AS tasks
}
RETURN screens, elements, tasks
