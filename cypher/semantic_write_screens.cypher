// semantic_write_screens: a screen's summary and sub-tasks (a JSON string),
// then the hash of the content they were made from: written last, so a run
// that stopped before it redoes the screen.
UNWIND $rows AS r
MATCH (s:Screen {id: r.id})
SET s.summary = r.summary, s.subtasks = r.subtasks, s.summary_hash = r.summary_hash
