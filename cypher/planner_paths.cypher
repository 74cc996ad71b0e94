// planner_paths: every shortest UTG path (up to 12 hops) from one screen to another.
// Neo4j and ArcadeDB differ on filtering during the search, so none is done here:
// callers rank the candidates: fewest stale edges, then how reliably their transitions worked.
MATCH (a:Screen {id: $source_id}), (b:Screen {id: $target_id})
MATCH p = allShortestPaths((a)-[:TRANSITION*..12]->(b))
RETURN [t IN relationships(p) | {action: t.action, element_id: t.element_id, detail: t.detail,
        input_template: t.input_template, target: endNode(t).id, observations: t.observations,
        successes: t.successes, failures: t.failures, stale: coalesce(t.stale, false),
        crowd_only: coalesce(t.crowd_only, false), crowd_trusted: coalesce(t.crowd_trusted, false),
        crowd_successes: coalesce(t.crowd_successes, 0.0), crowd_failures: coalesce(t.crowd_failures, 0.0),
        contributed_successes: coalesce(t.contributed_successes, 0),
        contributed_failures: coalesce(t.contributed_failures, 0)}] AS hops
LIMIT 25
