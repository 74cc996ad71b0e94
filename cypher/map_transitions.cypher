// map_transitions: the transitions between an app's own screens, with the acted element's
// label, counts for reliability, and staleness.
MATCH (a:App {package: $package})-[:HAS_SCREEN]->(s:Screen)-[t:TRANSITION]->(n:Screen)<-[:HAS_SCREEN]-(a)
OPTIONAL MATCH (e:Element {id: t.element_id})
RETURN t.key AS key, s.id AS source, n.id AS target, t.action AS action, t.element_id AS element_id,
       e.label AS element, t.detail AS detail, t.observations AS observations, t.successes AS successes,
       t.failures AS failures, coalesce(t.stale, false) AS stale
ORDER BY key
