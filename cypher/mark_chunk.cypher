// mark_chunk: record that this chunk of the trace is in the graph (same transaction as its rows).
MATCH (t:Trace {id: $trace_id})
SET t.chunks = CASE WHEN $chunk IN t.chunks THEN t.chunks ELSE t.chunks + $chunk END
