// crowd_trust_elements: whether an element only contributions reported may be read by plans, the
// summaries and the element index (cypher/elements.cypher holds the others out): once $quorum distinct
// public contributors back it (crowd_keys; a tenant's keys, TENANT/key, are private voices). Judged again for the apps $packages after a contribution and a purge.
MATCH (s:Screen)-[:HAS_ELEMENT]->(e:Element)
WHERE s.package IN $packages AND coalesce(e.crowd_only, false)
SET e.crowd_trusted = size([k IN coalesce(e.crowd_keys, []) WHERE NOT k CONTAINS '/']) >= $quorum
RETURN count(e) AS judged
