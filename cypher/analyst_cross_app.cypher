// analyst_cross_app: transitions that leave one package for another (launcher,
// system dialogs, share targets, browsers): the links that make cross-app paths.
MATCH (s:Screen)-[t:TRANSITION]->(n:Screen)
WHERE s.package <> n.package AND ($package IS NULL OR $package IN [s.package, n.package])
OPTIONAL MATCH (e:Element {id: t.element_id})
RETURN s.package AS from_package, s.title AS from_title, t.action AS action, e.label AS element,
       t.detail AS detail, n.package AS to_package, n.title AS to_title, t.observations AS observations
ORDER BY observations DESC, from_package, to_package
LIMIT 200
