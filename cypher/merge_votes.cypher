// merge_votes: per-contributor counts on UTG edges, once per contributed trace (the
// Trace's `voted` flag makes a repeated delivery a no-op). A Vote holds one
// contributor's successes and failures on one edge; `weight` is its trust
// (corrections weigh more than runs). Returns the votes written.
MATCH (tr:Trace {id: $trace_id})
WHERE tr.voted IS NULL
SET tr.voted = true, tr.contributor = $contributor
WITH tr
UNWIND $rows AS r
MERGE (v:Vote {id: r.id})
ON CREATE SET v.edge = r.key, v.contributor = $contributor, v.successes = 0, v.failures = 0, v.weight = $weight
SET v.successes = v.successes + r.successes, v.failures = v.failures + r.failures
RETURN count(v) AS votes
