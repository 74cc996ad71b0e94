// purge_edge_reset: edges no vote is left on lose their crowd counts, as before any contribution.
UNWIND $keys AS key
MATCH (:Screen)-[t:TRANSITION {key: key}]->(:Screen)
OPTIONAL MATCH (w:Vote {edge: key})
WITH t, count(w) AS votes
WHERE votes = 0
REMOVE t.crowd_successes, t.crowd_failures, t.contributed_successes, t.contributed_failures, t.contributors,
       t.crowd_trusted, t.tenant_counts
RETURN count(t) AS reset
