// edge_crowd: fold the votes of some edges into crowd counts on the edge, so that a plan
// weighs contributors, not raw counts: each contributor adds at most `weight` to
// crowd_successes + crowd_failures, split by its own success ratio. contributed_* are
// the raw counts the votes cover (already inside successes / failures). The crowd's
// counts (and an edge only contributions report) count for plans only once $quorum
// distinct contributors voted on the edge (`crowd_trusted`): no single key steers plans.
// A tenant's keys (contributor TENANT/key) are private voices: their raw counts are in contributed_* (the
// public never sees them) and per tenant in `tenant_counts` ("TENANT/ successes failures", one per key);
// a tenant's shared voice (`shared` votes, ingest/tenants.py) is one public voice whose raw counts are
// already its keys'.
// `agreed_versions`: the versions (claims "KEY version": merge_transitions) that $quorum public contributors
// saw the edge in, which count beside the `versions` crawls and imports saw (refresh_stale).
UNWIND $rows AS r
MATCH (:Screen {id: r.source})-[t:TRANSITION {key: r.key}]->(:Screen {id: r.target})
MATCH (w:Vote {edge: r.key})
WITH t, w, NOT w.contributor CONTAINS '/' AS public, CASE WHEN coalesce(w.shared, false) THEN 0 ELSE 1 END AS raw
WITH t, sum(CASE WHEN public THEN w.weight * toFloat(w.successes) / (w.successes + w.failures) ELSE 0.0 END) AS ws,
     sum(CASE WHEN public THEN w.weight * toFloat(w.failures) / (w.successes + w.failures) ELSE 0.0 END) AS wf,
     sum(raw * w.successes) AS cs, sum(raw * w.failures) AS cf,
     count(DISTINCT CASE WHEN public THEN w.contributor END) AS voters,
     [x IN collect(CASE WHEN NOT public THEN split(w.contributor, '/')[0] + '/ ' + toString(w.successes) + ' '
                                           + toString(w.failures) END) WHERE x IS NOT NULL] AS private
WITH t, ws, wf, cs, cf, voters, private,
     [c IN coalesce(t.crowd_versions, []) WHERE NOT split(c, ' ')[0] CONTAINS '/'
      | substring(c, size(split(c, ' ')[0]) + 1)] AS claimed
SET t.crowd_successes = ws, t.crowd_failures = wf, t.contributed_successes = cs, t.contributed_failures = cf,
    t.contributors = voters, t.crowd_trusted = voters >= $quorum, t.tenant_counts = private,
    t.agreed_versions = reduce(out = [], v IN claimed |
                               CASE WHEN v IN out OR size([w IN claimed WHERE w = v]) < $quorum THEN out
                                    ELSE out + v END)
RETURN count(t) AS edges
