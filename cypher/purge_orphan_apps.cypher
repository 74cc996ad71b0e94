// purge_orphan_apps: delete App nodes a purge left with nothing: no trace, screen or other link
// (an app, or a version, that only the purged key's contributions named). A crawl or an import
// writes its App and its Trace in one transaction (graph/store.py write_chunk), so none is caught
// half-written. Returns how many.
MATCH (a:App)
WHERE NOT (a)--()
WITH collect(a) AS orphans
FOREACH (a IN orphans | DELETE a)
RETURN size(orphans) AS deleted
