// tenant_share_votes: one Vote of a tenant's shared voice ($voice "tenant:NAME") per edge leaving $packages'
// screens that its keys ($prefix "NAME/") voted on: their counts summed, weight 1 (one contributor), `shared`
// (its keys' own votes hold these observations in the edge's counts already: purge_edge_counts and
// edge_crowd do not count them twice). Sharing again brings the sums up to date. Returns the edges, whose
// crowd counts are folded again (edge_crowd).
MATCH (v:Vote)
WHERE v.contributor STARTS WITH $prefix
MATCH (a:Screen)-[t:TRANSITION {key: v.edge}]->(b:Screen)
WHERE a.package IN $packages
WITH t, a, b, sum(v.successes) AS successes, sum(v.failures) AS failures
MERGE (w:Vote {id: $voice + ' ' + t.key})
ON CREATE SET w.edge = t.key, w.contributor = $voice, w.weight = 1.0, w.shared = true
SET w.successes = successes, w.failures = failures
RETURN t.key AS key, a.id AS source, b.id AS target
