// purge_follows: take one contributor off the order-2 outcomes it reported (follow_votes), judge
// those pairs again, and delete the pairs no import, crawl or other contributor backs.
MATCH (f:Follow)
WHERE $contributor IN f.crowd_keys
WITH f, [k IN f.crowd_keys WHERE k <> $contributor] AS keys
SET f.crowd_keys = keys, f.crowd_trusted = size([k IN keys WHERE NOT k CONTAINS '/']) >= $quorum
WITH f
WHERE f.observations = 0 AND size(f.crowd_keys) = 0
DETACH DELETE f
RETURN count(*) AS deleted
