// elements: the elements with ids $ids or on the screens $screen_ids (two lists; empty: none),
// with everything a plan step or a summary reads of them. Both filters use Element's own
// indexes (id, screen_id): a `$x IS NULL OR ...` filter here made the server scan every element.
// Ordered by screen, then structural key (the order of the screen's view tree), then id (two elements may
// share a key: a tenant's layer joins them in the order its own read gives, graph/graphrows.py). An element
// only contributions reported is held out until enough contributors back it (crowd_trust_elements): no single
// key may add what plans, summaries and the element index read.
// An element's texts, bounds and flags as its reader reads them (text(e, r), ...: cypher/__init__.py FIELDS).
MATCH (e:Element)
WHERE (e.id IN $ids OR e.screen_id IN $screen_ids)
  AND trusted(e)
MATCH (s:Screen)-[:HAS_ELEMENT]->(e)
WITH s, e, report(e) AS r
RETURN e.id AS id, s.id AS screen_id, s.package AS package, coalesce(e.key, '') AS key,
       coalesce(e.class_name, '') AS class_name, coalesce(e.resource_id, '') AS resource_id,
       text(e, r) AS text,
       content_desc(e, r) AS content_desc, bounds(e, r) AS bounds,
       flags(e, r) AS flags, locators(e, r) AS locators, coalesce(e.risky, false) AS risky,
       coalesce(e.simulated_task, '') AS simulated_task
ORDER BY screen_id, key, id
