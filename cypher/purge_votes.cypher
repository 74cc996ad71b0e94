// purge_votes: delete one contributor's votes, in the transaction of purge_edge_counts, which took them
// off the edges (ingest/purge.py): a purge run again finds none to subtract twice.
MATCH (v:Vote {contributor: $contributor})
DETACH DELETE v
RETURN count(*) AS deleted
