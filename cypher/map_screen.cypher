// map_screen: one screen of an app for the map's side panel: its summary and sub-tasks, and
// its elements with their simulated tasks and risk flags; only what the trust predicate admits
// (cypher/__init__.py): the screen, its link to the app version and its elements.
// An element's texts, bounds and flags as its reader reads them (text(e), ...: cypher/__init__.py FIELDS).
MATCH (:App {package: $package})-[h:HAS_SCREEN]->(s:Screen {id: $screen_id})
WHERE trusted(h) AND trusted(s)
WITH DISTINCT s
OPTIONAL MATCH (s)-[:HAS_ELEMENT]->(e:Element)
WHERE trusted(e)
WITH s, e ORDER BY e.key
RETURN s.id AS id, title(s) AS title, s.activity AS activity, s.app_version AS version, s.summary AS summary,
       s.subtasks AS subtasks,
       [x IN collect(e) | {id: x.id, label: label(x), class_name: x.class_name, resource_id: x.resource_id,
                           simulated_task: x.simulated_task, risky: coalesce(x.risky, false)}] AS elements
