// recall_screens: package, version and signature of screens by id (plan steps name
// their app; recalled steps are mapped onto the current version by signature).
MATCH (s:Screen)
WHERE s.id IN $ids
RETURN s.id AS id, s.package AS package, s.app_version AS app_version, s.signature AS signature,
       s.title AS title
