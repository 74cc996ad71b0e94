// merge_screens: abstract screens keyed by their content-free signature id,
// attached to the App (package, version) they belong to.
UNWIND $rows AS r
MATCH (a:App {id: r.app_id})
MERGE (s:Screen {id: r.id})
ON CREATE SET s.package = r.package, s.app_version = r.app_version, s.activity = r.activity,
              s.signature = r.signature, s.first_seen = r.seen
SET s.title = r.title, s.last_seen = r.seen
MERGE (a)-[:HAS_SCREEN]->(s)
