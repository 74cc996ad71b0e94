// merge_trace: the provenance node of a run, linked to the app it studied.
MATCH (a:App {id: $app_id})
MERGE (t:Trace {id: $id})
ON CREATE SET t.source = $source, t.device = $device, t.explorer = $explorer, t.package = $package,
              t.app_version = $app_version, t.started = $started, t.chunks = []
SET t.ended = $ended
MERGE (t)-[:OF_APP]->(a)
