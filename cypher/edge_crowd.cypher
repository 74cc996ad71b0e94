// edge_crowd: fold the votes of some edges into crowd counts on the edge, so that a plan
// weighs contributors, not raw counts: each contributor adds at most `weight` to
// crowd_successes + crowd_failures, split by its own success ratio. contributed_* are
// the raw counts the votes cover (already inside successes / failures). The crowd's
// counts (and an edge only contributions report) count for plans only once $quorum
// distinct contributors voted on the edge (`crowd_trusted`): no single key steers plans.
UNWIND $rows AS r
MATCH (:Screen {id: r.source})-[t:TRANSITION {key: r.key}]->(:Screen {id: r.target})
MATCH (w:Vote {edge: r.key})
WITH t, sum(w.weight * toFloat(w.successes) / (w.successes + w.failures)) AS ws,
     sum(w.weight * toFloat(w.failures) / (w.successes + w.failures)) AS wf,
     sum(w.successes) AS cs, sum(w.failures) AS cf, count(DISTINCT w.contributor) AS voters
SET t.crowd_successes = ws, t.crowd_failures = wf, t.contributed_successes = cs, t.contributed_failures = cf,
    t.contributors = voters, t.crowd_trusted = voters >= $quorum
RETURN count(t) AS edges
