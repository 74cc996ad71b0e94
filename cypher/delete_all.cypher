// delete_all: empty the graph (tests and `appmem reset`); batched so large graphs fit in memory.
MATCH (n)
WITH n LIMIT 20000
DETACH DELETE n
RETURN count(*) AS deleted
