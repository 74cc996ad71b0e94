// map_transitions: the transitions between an app's own screens, with the acted element's
// label, counts for reliability (`counts`: graph/votes.py shown_counts), and staleness; only what the trust predicate admits
// (cypher/__init__.py): edges, their screens and their links to the app, the element named.
// An element's texts, bounds and flags as its reader reads them (text(e), ...: cypher/__init__.py FIELDS).
MATCH (a:App {package: $package})-[h:HAS_SCREEN]->(s:Screen)-[t:TRANSITION]->(n:Screen)<-[g:HAS_SCREEN]-(a)
WHERE trusted(t) AND trusted(s) AND trusted(n) AND trusted(h) AND trusted(g)
OPTIONAL MATCH (e:Element {id: t.element_id})
WHERE trusted(e)
RETURN t.key AS key, s.id AS source, n.id AS target, t.action AS action, t.element_id AS element_id,
       label(e) AS element, t.detail AS detail, counts(t) AS counts, coalesce(t.stale, false) AS stale
ORDER BY key
