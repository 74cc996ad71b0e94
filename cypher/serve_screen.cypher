// serve_screen: one screen of an app with its elements, for GET /v1/apps/{package}/screens/{id}. Only what
// the trust predicate admits (cypher/__init__.py): a screen or an element one key alone reported is absent.
// An element's texts, bounds and flags as its reader reads them (text(e), ...: cypher/__init__.py FIELDS).
MATCH (s:Screen {id: $screen_id})
WHERE s.package = $package AND trusted(s)
OPTIONAL MATCH (s)-[:HAS_ELEMENT]->(e:Element)
WHERE trusted(e)
WITH s, e ORDER BY e.key
RETURN s.id AS id, s.package AS package, s.app_version AS app_version, s.activity AS activity,
       coalesce(title(s), '') AS title, coalesce(s.summary, '') AS summary,
       [x IN collect(e) | {id: x.id, label: label(x), class_name: x.class_name, resource_id: x.resource_id,
        flags: flags(x), locators: locators(x), risky: coalesce(x.risky, false)}] AS elements
