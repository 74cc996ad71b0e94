// merge_votes: per-contributor counts on UTG edges, written with each chunk of a contributed trace in
// the chunk's own transaction (graph/store.py write_chunk: a chunk is written once, so is its vote). A
// Vote holds exactly what one contributor's chunks added to one edge's successes and failures, so a
// purge subtracts exactly that (purge_edge_counts); `weight` is its trust (corrections weigh more than
// runs; the first trace's). Returns the votes written.
UNWIND $rows AS r
MERGE (v:Vote {id: r.id})
ON CREATE SET v.edge = r.key, v.contributor = $contributor, v.successes = 0, v.failures = 0, v.weight = $weight
SET v.successes = v.successes + r.successes, v.failures = v.failures + r.failures
RETURN count(v) AS votes
