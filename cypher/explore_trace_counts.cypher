// explore_trace_counts: a trace's chunk markers and the states it saw, and the observations
// summed over every TRANSITION edge of the graph (on a graph holding only this trace, that
// sum equals the trace's steps: no observation is counted twice).
MATCH (t:Trace {id: $trace_id})
OPTIONAL MATCH (t)-[:SAW]->(st:State)
WITH t, count(DISTINCT st) AS states
OPTIONAL MATCH (:Screen)-[x:TRANSITION]->(:Screen)
RETURN t.chunks AS chunks, states, coalesce(sum(x.observations), 0) AS observations
