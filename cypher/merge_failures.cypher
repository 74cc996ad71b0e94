// merge_failures: a run's steps that did not reach the screen their plan expected count as
// failures on the edge they were meant to take (source screen, action, expected screen),
// once per run (the Trace's `failures_counted` flag). Edges never observed are not created.
MATCH (tr:Trace {id: $trace_id})
WHERE tr.failures_counted IS NULL
SET tr.failures_counted = true
WITH tr
UNWIND $rows AS r
MATCH (:Screen {id: r.source})-[t:TRANSITION {key: r.key}]->(:Screen {id: r.target})
SET t.failures = t.failures + 1, t.observations = t.observations + 1
RETURN count(t) AS failed
