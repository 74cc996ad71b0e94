// migrate_times_set: write back the times migrate_times_find returned, converted in Python
// to canonical UTC ISO strings (null when absent), as datetimes. One statement per kind;
// each takes every row and keeps its own kind.
UNWIND $rows AS r
WITH r WHERE r.kind = 'screen'
MATCH (s:Screen {id: r.id})
SET s.first_seen = datetime(r.a), s.last_seen = datetime(r.b);
UNWIND $rows AS r
WITH r WHERE r.kind = 'state'
MATCH (s:State {id: r.id})
SET s.observed_at = datetime(r.a);
UNWIND $rows AS r
WITH r WHERE r.kind = 'trace'
MATCH (t:Trace {id: r.id})
SET t.started = datetime(r.a), t.ended = datetime(r.b);
UNWIND $rows AS r
WITH r WHERE r.kind = 'transition'
MATCH ()-[t:TRANSITION {key: r.id}]->()
SET t.first_seen = datetime(r.a), t.last_seen = datetime(r.b)
