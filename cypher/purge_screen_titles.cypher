// purge_screen_titles: take one contributor's titles of screens back off their layers (what merge_screens kept
// under its key id: `layer_title_keys`, `layer_titles` in its order).
MATCH (s:Screen)
WHERE $contributor IN coalesce(s.layer_title_keys, [])
WITH s, [i IN range(0, size(s.layer_title_keys) - 1) WHERE s.layer_title_keys[i] <> $contributor] AS kept
SET s.layer_titles = [i IN kept | s.layer_titles[i]], s.layer_title_keys = [i IN kept | s.layer_title_keys[i]]
RETURN count(s) AS screens
