// explore_integrity: nodes whose id appears twice, and relationships repeated between
// the same two nodes with the same type and key (TRANSITION key, STEP index, LEADS_TO action).
// Both must be 0: every write is a MERGE on deterministic ids under a per-app lock.
CALL {
  MATCH (n)
  RETURN count(n) AS nodes, count(DISTINCT n.id) AS node_ids
}
CALL {
  MATCH (a)-[r]->(b)
  WITH a, b, type(r) AS kind, coalesce(r.key, toString(r.index), r.action, '') AS k, count(r) AS c
  RETURN count(*) AS relationship_keys, coalesce(sum(c - 1), 0) AS duplicate_relationships
}
RETURN nodes, node_ids, nodes - node_ids AS duplicate_nodes, relationship_keys, duplicate_relationships
