// explore_screens_outside: screens of a package that one trace saw and a reference trace
// (e.g. the imported recording of the same app) never saw.
MATCH (t:Trace {id: $trace_id})-[:SAW]->(:State)-[:OF_SCREEN]->(s:Screen)
WHERE s.package = $package
WITH DISTINCT s
WHERE NOT EXISTS { MATCH (:Trace {id: $reference_id})-[:SAW]->(:State)-[:OF_SCREEN]->(s) }
RETURN s.id AS id, s.activity AS activity
