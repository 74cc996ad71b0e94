// purge_crowd_app_screens: delete the app-to-screen links (HAS_SCREEN) only contributions made and no
// contributor is left behind (a foreign app's screen a purged key's dump showed); the App left with
// nothing goes next (purge_orphan_apps). Returns how many.
MATCH (:App)-[h:HAS_SCREEN]->(:Screen)
WHERE coalesce(h.crowd_only, false) AND size(coalesce(h.crowd_keys, [])) = 0
WITH collect(h) AS links
FOREACH (h IN links | DELETE h)
RETURN size(links) AS deleted
