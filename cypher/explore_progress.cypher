// explore_progress: the chunks of an exploration trace already in the graph, so a
// retried job resumes after them instead of writing their observations twice.
OPTIONAL MATCH (t:Trace {id: $trace_id})
RETURN coalesce(t.chunks, []) AS chunks
