// merge_trace: the provenance node of a run, linked to the app it studied;
// entry_screen (where the run entered the app) is set by the chunk that knows it. Only a crawl's or an
// import's time moves the app's `explored` (which version is the newest explored: refresh_stale): a
// contribution's times are its sender's word.
MATCH (a:App {id: $app_id})
MERGE (t:Trace {id: $id})
ON CREATE SET t.source = $source, t.device = $device, t.explorer = $explorer, t.package = $package,
              t.app_version = $app_version, t.started = datetime($started), t.chunks = []
SET t.ended = coalesce(datetime($ended), t.ended), t.entry_screen = coalesce($entry_screen, t.entry_screen),
    t.contributor = CASE WHEN $contributor = '' THEN t.contributor ELSE $contributor END
MERGE (t)-[:OF_APP]->(a)
WITH a, CASE WHEN $contributor = '' THEN coalesce(datetime($ended), datetime($started)) END AS at
SET a.explored = CASE WHEN at IS NOT NULL AND (a.explored IS NULL OR at > a.explored) THEN at ELSE a.explored END
