// semantic_write_tasks: mark demonstrations as embedded (the hash of what was embedded).
UNWIND $rows AS r
MATCH (k:Task {id: r.id})
SET k.embed_hash = r.embed_hash
