// analyst_path_graph: the shortest UTG path between two screens as a graph.
MATCH (a:Screen {id: $source_id}), (b:Screen {id: $target_id})
MATCH p = shortestPath((a)-[:TRANSITION*..12]->(b))
RETURN p
