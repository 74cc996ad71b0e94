// tenant_share_follows: the order-2 outcomes of $packages a tenant's keys ($prefix "NAME/") back, backed by its
// shared voice ($voice "tenant:NAME") too, and judged again against the public $quorum.
MATCH (f:Follow)
WHERE f.package IN $packages AND any(k IN f.crowd_keys WHERE k STARTS WITH $prefix) AND NOT $voice IN f.crowd_keys
WITH f, f.crowd_keys + $voice AS keys
SET f.crowd_keys = keys, f.crowd_trusted = size([k IN keys WHERE NOT k CONTAINS '/']) >= $quorum
RETURN count(f) AS shared
