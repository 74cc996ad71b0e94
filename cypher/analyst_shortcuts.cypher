// analyst_shortcuts: the most used transitions of an app (observed most often across
// traces and devices) with how reliably they worked: (successes + 1) / (successes + failures + 2).
MATCH (:App {package: $package})-[:HAS_SCREEN]->(s:Screen)-[t:TRANSITION]->(n:Screen)
WHERE s <> n
OPTIONAL MATCH (e:Element {id: t.element_id})
RETURN s.title AS from_title, t.action AS action, e.label AS element, n.title AS to_title,
       t.observations AS observations, size(t.devices) AS devices,
       round(100.0 * (t.successes + 1) / (t.successes + t.failures + 2)) / 100.0 AS reliability
ORDER BY observations DESC, devices DESC, reliability DESC
LIMIT 25
