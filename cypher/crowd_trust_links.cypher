// crowd_trust_links: whether a screen's link to an app version (HAS_SCREEN) that only contributions made
// may be read (the map, the apps list, the current version): once $quorum distinct contributors back it
// (crowd_keys, kept by merge_screens; a tenant's keys, TENANT/key, are private voices), as crowd_trust_screens
// decides for the screen. Judged again for
// the apps $packages after a contribution and a purge.
MATCH (:App)-[h:HAS_SCREEN]->(s:Screen)
WHERE s.package IN $packages AND coalesce(h.crowd_only, false)
SET h.crowd_trusted = size([k IN coalesce(h.crowd_keys, []) WHERE NOT k CONTAINS '/']) >= $quorum
RETURN count(h) AS judged
