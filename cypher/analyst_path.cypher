// analyst_path: a shortest UTG path between two screens, step by step.
MATCH (a:Screen {id: $source_id}), (b:Screen {id: $target_id})
MATCH p = shortestPath((a)-[:TRANSITION*..12]->(b))
UNWIND range(0, length(p) - 1) AS i
WITH p, i, relationships(p)[i] AS t
OPTIONAL MATCH (e:Element {id: t.element_id})
RETURN i AS step, nodes(p)[i].title AS from_title, t.action AS action, e.label AS element,
       nodes(p)[i + 1].title AS to_title
ORDER BY step
