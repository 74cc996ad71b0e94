// planner_paths: every shortest UTG path (up to 12 hops) from one screen to another.
// Neo4j and ArcadeDB differ on filtering during the search, so none is done here:
// the planner ranks the candidates by how reliably their transitions worked.
MATCH (a:Screen {id: $source_id}), (b:Screen {id: $target_id})
MATCH p = allShortestPaths((a)-[:TRANSITION*..12]->(b))
RETURN [t IN relationships(p) | {action: t.action, element_id: t.element_id, detail: t.detail,
        input_template: t.input_template, target: endNode(t).id, observations: t.observations,
        successes: t.successes, failures: t.failures}] AS hops
LIMIT 25
