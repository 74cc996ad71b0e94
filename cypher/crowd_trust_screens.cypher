// crowd_trust_screens: whether a screen only contributions reported may be summarised, embedded and
// searched: once $quorum distinct contributors back it (crowd_keys), as edge_crowd decides for edges.
// A tenant's key (a contributor id TENANT/key) is a private voice: it never counts towards the public quorum.
// Judged again for the apps $packages after a contribution is ingested and after a purge.
MATCH (s:Screen)
WHERE s.package IN $packages AND coalesce(s.crowd_only, false)
SET s.crowd_trusted = size([k IN coalesce(s.crowd_keys, []) WHERE NOT k CONTAINS '/']) >= $quorum
RETURN count(s) AS judged
