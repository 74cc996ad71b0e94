// recall_screens: package, versions seen in, signature and title of screens by id
// (plan steps name their app by it).
MATCH (s:Screen)
WHERE s.id IN $ids
RETURN s.id AS id, s.package AS package, s.app_version AS app_version, s.signature AS signature,
       coalesce(s.versions, []) AS versions,
       s.title AS title
