// map_screen: one screen of an app for the map's side panel: its summary and sub-tasks, and
// its elements with their simulated tasks and risk flags; only what the trust predicate admits
// (cypher/__init__.py): the screen, its link to the app version and its elements.
// An element's texts only where the reader may read them (shown(e): a tenant key's are its tenant's).
MATCH (:App {package: $package})-[h:HAS_SCREEN]->(s:Screen {id: $screen_id})
WHERE trusted(h) AND trusted(s)
WITH DISTINCT s
OPTIONAL MATCH (s)-[:HAS_ELEMENT]->(e:Element)
WHERE trusted(e)
WITH s, e ORDER BY e.key
RETURN s.id AS id, s.title AS title, s.activity AS activity, s.app_version AS version, s.summary AS summary,
       s.subtasks AS subtasks,
       [x IN collect(e) | {id: x.id, label: CASE WHEN shown(x) THEN x.label ELSE '' END, class_name: x.class_name, resource_id: x.resource_id,
                           simulated_task: x.simulated_task, risky: coalesce(x.risky, false)}] AS elements
