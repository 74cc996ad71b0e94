// purge_edge_counts: take one contributor's observations off the edges it voted on (a Vote
// holds exactly what its traces added to the edge's counts) and its device pseudonyms ($devices) off their
// device lists; returns the edges, whose crowd counts are folded again (edge_crowd).
MATCH (v:Vote {contributor: $contributor})
MATCH (a:Screen)-[t:TRANSITION {key: v.edge}]->(b:Screen)
SET t.successes = t.successes - v.successes, t.failures = t.failures - v.failures,
    t.observations = t.observations - v.successes - v.failures,
    t.devices = [d IN coalesce(t.devices, []) WHERE NOT d IN $devices]
RETURN DISTINCT t.key AS key, a.id AS source, b.id AS target
