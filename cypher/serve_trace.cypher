// serve_trace: a trace's provenance, its steps' edges' outcomes, and the Task a done run became.
MATCH (t:Trace {id: $trace_id})
OPTIONAL MATCH (k:Task {id: $task_id})
RETURN t.source AS source, t.device AS device, t.package AS package, size(t.chunks) AS chunks,
       k.source AS task_source, k.description AS task
