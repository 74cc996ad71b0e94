// chunk_seen: has this chunk of this trace been written already?
// Re-ingesting a trace (or retrying a chunk) must not count observations twice.
OPTIONAL MATCH (t:Trace {id: $trace_id})
RETURN t IS NOT NULL AND $chunk IN coalesce(t.chunks, []) AS seen
