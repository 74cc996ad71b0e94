// purge_edge_counts: take one contributor's observations off the edges it voted on (a Vote
// holds exactly what its traces added to the edge's counts) and its device pseudonyms ($devices) off their
// device lists, and its version claims off `crowd_versions` (a tenant's shared vote added no counts of its own: its keys' votes hold them); returns the edges, whose crowd counts are folded again (edge_crowd).
MATCH (v:Vote {contributor: $contributor})
MATCH (a:Screen)-[t:TRANSITION {key: v.edge}]->(b:Screen)
WITH v, t, a, b, CASE WHEN coalesce(v.shared, false) THEN 0 ELSE 1 END AS own
SET t.successes = t.successes - own * v.successes, t.failures = t.failures - own * v.failures,
    t.observations = t.observations - own * (v.successes + v.failures),
    t.devices = [d IN coalesce(t.devices, []) WHERE NOT d IN $devices],
    t.crowd_versions = [c IN coalesce(t.crowd_versions, []) WHERE NOT c STARTS WITH $contributor + ' ']
RETURN DISTINCT t.key AS key, a.id AS source, b.id AS target
