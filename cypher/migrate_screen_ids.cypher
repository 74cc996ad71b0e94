// migrate_screen_ids: every screen with its package and signature, to tell the ids written before screen ids
// lost their app version (graph/migrate.py `old_screen_ids`).
MATCH (s:Screen)
WHERE s.signature IS NOT NULL
RETURN s.id AS id, s.package AS package, s.signature AS signature
