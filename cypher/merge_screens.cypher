// merge_screens: abstract screens keyed by their content-free signature id,
// attached to the App (package, version) they belong to. Times: ISO strings in, datetime stored
// (graph/times.py says why the wrapping is done here).
UNWIND $rows AS r
MATCH (a:App {id: r.app_id})
MERGE (s:Screen {id: r.id})
ON CREATE SET s.package = r.package, s.app_version = r.app_version, s.activity = r.activity,
              s.signature = r.signature, s.first_seen = datetime(r.seen), s.last_seen = datetime(r.seen)
SET s.title = r.title,
    s.first_seen = CASE WHEN datetime(r.seen) < s.first_seen THEN datetime(r.seen) ELSE s.first_seen END,
    s.last_seen = CASE WHEN datetime(r.seen) > s.last_seen THEN datetime(r.seen) ELSE s.last_seen END
MERGE (a)-[:HAS_SCREEN]->(s)
