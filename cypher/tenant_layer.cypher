// tenant_layer: a tenant's layer, counted ($prefix: "NAME/", its keys' contributor ids): the traces and
// demonstrations its keys sent; the screens, elements and edges they back, and of those how many only they
// back (`private`: no crawl, import or other contributor saw them), and the elements their own reports of
// (texts, bounds, flags: merge_elements' Report nodes) are kept for (`reported_elements`), the screens their own titles are kept
// for (`titled_screens`: merge_screens); the apps they reported.
CALL () {
  MATCH (tr:Trace)
  WHERE coalesce(tr.contributor, '') STARTS WITH $prefix
  RETURN count(tr) AS traces, collect(DISTINCT tr.package) AS apps
}
CALL () {
  MATCH (s:Screen)
  WHERE any(k IN coalesce(s.crowd_keys, []) WHERE k STARTS WITH $prefix)
  RETURN count(s) AS screens,
         count(CASE WHEN s.crowd_only AND all(k IN s.crowd_keys WHERE k STARTS WITH $prefix) THEN 1 END) AS private_screens,
         count(CASE WHEN any(k IN coalesce(s.layer_title_keys, []) WHERE k STARTS WITH $prefix) THEN 1 END) AS titled_screens
}
CALL () {
  MATCH (e:Element)
  WHERE any(k IN coalesce(e.crowd_keys, []) WHERE k STARTS WITH $prefix)
  RETURN count(e) AS elements,
         count(CASE WHEN e.crowd_only AND all(k IN e.crowd_keys WHERE k STARTS WITH $prefix) THEN 1 END) AS private_elements
}
CALL () {
  MATCH (x:Report)
  WHERE x.contributor STARTS WITH $prefix
  RETURN count(DISTINCT x.element_id) AS reported_elements
}
CALL () {
  MATCH (:Screen)-[t:TRANSITION]->(:Screen)
  WHERE any(k IN coalesce(t.crowd_keys, []) WHERE k STARTS WITH $prefix)
  RETURN count(t) AS transitions,
         count(CASE WHEN t.crowd_only AND all(k IN t.crowd_keys WHERE k STARTS WITH $prefix) THEN 1 END) AS private_transitions
}
CALL () {
  MATCH (k:Task)
  WHERE coalesce(k.contributor, '') STARTS WITH $prefix
  RETURN count(k) AS tasks
}
RETURN traces, apps, screens, private_screens, titled_screens, elements, private_elements, reported_elements, transitions, private_transitions, tasks
