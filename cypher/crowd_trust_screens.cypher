// crowd_trust_screens: whether a screen only contributions reported may be summarised, embedded and
// searched: once $quorum distinct contributors back it (crowd_keys), as edge_crowd decides for edges.
// A tenant's key (a contributor id TENANT/key) is a private voice: it never counts towards the public quorum.
// `agreed_versions`, on any screen contributions reported: the versions (their claims "KEY version":
// merge_screens) that $quorum public contributors saw it in, which count beside the `versions` crawls and
// imports saw. Judged again for the apps $packages after a contribution is ingested and after a purge.
MATCH (s:Screen)
WHERE s.package IN $packages AND (coalesce(s.crowd_only, false) OR s.crowd_versions IS NOT NULL)
WITH s, [c IN coalesce(s.crowd_versions, []) WHERE NOT split(c, ' ')[0] CONTAINS '/'
         | substring(c, size(split(c, ' ')[0]) + 1)] AS claimed
SET s.crowd_trusted = CASE WHEN coalesce(s.crowd_only, false)
                           THEN size([k IN coalesce(s.crowd_keys, []) WHERE NOT k CONTAINS '/']) >= $quorum
                           ELSE s.crowd_trusted END,
    s.agreed_versions = reduce(out = [], v IN claimed |
                               CASE WHEN v IN out OR size([w IN claimed WHERE w = v]) < $quorum THEN out
                                    ELSE out + v END)
RETURN count(s) AS judged
