// serve_task_targets: the elements of an app that recorded taps used, with their labels as the
// memory keeps them (scrubbed), the screen they are on and where the tap led: the raw material
// of tasks "built from the recorded graph" (runtime tests, bench/serve.py); `to_package` says where the
// tap led when it left the app (a launcher, a browser).
MATCH (s:Screen {package: $package})-[t:TRANSITION {action: 'tap'}]->(b:Screen)
WHERE t.element_id <> '' AND b.id <> s.id
MATCH (s)-[:HAS_ELEMENT]->(e:Element {id: t.element_id})
RETURN DISTINCT e.id AS element_id, e.label AS label, s.id AS screen_id, b.id AS to_screen, b.package AS to_package
ORDER BY label, element_id
