// purge_traces: delete one contributor's traces and the states only they saw (a state a crawl
// or another contributor also saw stays).
MATCH (tr:Trace {contributor: $contributor})-[:SAW]->(st:State)
OPTIONAL MATCH (st)<-[:SAW]-(o:Trace)
WHERE coalesce(o.contributor, '') <> $contributor
WITH DISTINCT st, count(o) AS others
WHERE others = 0
DETACH DELETE st
WITH count(*) AS states
MATCH (tr:Trace {contributor: $contributor})
DETACH DELETE tr
RETURN states, count(*) AS traces
