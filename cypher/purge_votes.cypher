// purge_votes: delete one contributor's votes (after purge_edge_counts took them off the edges).
MATCH (v:Vote {contributor: $contributor})
DETACH DELETE v
RETURN count(*) AS deleted
