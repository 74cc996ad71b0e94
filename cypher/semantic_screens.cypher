// semantic_screens: the screens to summarise (all, or those of $packages) with
// the hash of the content their current summary was made from. A screen only contributions
// reported waits until enough contributors back it (crowd_trust_screens).
MATCH (s:Screen)
WHERE ($packages IS NULL OR s.package IN $packages)
  AND trusted(s)
RETURN s.id AS id, s.package AS package, s.app_version AS app_version, s.activity AS activity,
       coalesce(title(s), '') AS title, s.summary_hash AS summary_hash
ORDER BY id
