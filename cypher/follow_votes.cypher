// follow_votes: one contributor's order-2 outcomes (graph/follows.py): the contributor joins each
// pair's `crowd_keys` once, however often it reports it (one voice per contributor, and a
// repeated delivery changes nothing). A pair counts for plans once $quorum public contributors back it (a tenant's keys,
// TENANT/key, are private voices).
UNWIND $rows AS r
MERGE (f:Follow {id: r.id})
ON CREATE SET f.prev = r.prev, f.next = r.next, f.package = r.package, f.observations = 0, f.crowd_keys = []
WITH f, CASE WHEN $contributor IN f.crowd_keys THEN f.crowd_keys ELSE f.crowd_keys + $contributor END AS keys
SET f.crowd_keys = keys, f.crowd_trusted = size([k IN keys WHERE NOT k CONTAINS '/']) >= $quorum
RETURN count(f) AS follows
