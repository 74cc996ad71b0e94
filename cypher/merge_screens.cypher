// merge_screens: abstract screens keyed by their signature id (graph/screens.py; no version
// in it), attached to every App (package, version) they were seen in; `versions` lists those. Times: ISO strings in, datetime stored
// (graph/times.py says why the wrapping is done here).
UNWIND $rows AS r
MATCH (a:App {id: r.app_id})
MERGE (s:Screen {id: r.id})
ON CREATE SET s.package = r.package, s.app_version = r.app_version, s.activity = r.activity,
              s.signature = r.signature, s.first_seen = datetime(r.seen), s.last_seen = datetime(r.seen),
              s.versions = []
SET s.title = r.title,
    s.versions = CASE WHEN r.version = '' OR r.version IN s.versions THEN s.versions ELSE s.versions + r.version END,
    s.first_seen = CASE WHEN datetime(r.seen) < s.first_seen THEN datetime(r.seen) ELSE s.first_seen END,
    s.last_seen = CASE WHEN datetime(r.seen) > s.last_seen THEN datetime(r.seen) ELSE s.last_seen END
MERGE (a)-[:HAS_SCREEN]->(s)
