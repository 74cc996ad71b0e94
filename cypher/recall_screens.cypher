// recall_screens: package, versions seen in (by a crawl or an import, or agreed by a quorum of
// contributors: crowd_trust_screens), signature and title (as its reader reads it: title(s)) of screens by id (plan steps name their app by it).
MATCH (s:Screen)
WHERE s.id IN $ids
RETURN s.id AS id, s.package AS package, s.app_version AS app_version, s.signature AS signature,
       coalesce(s.versions, []) + coalesce(s.agreed_versions, []) AS versions,
       title(s) AS title
