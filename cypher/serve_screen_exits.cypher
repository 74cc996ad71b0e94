// serve_screen_exits: where a screen's transitions lead, with their counts: the edges and target screens
// the trust predicate admits (cypher/__init__.py).
MATCH (s:Screen {id: $screen_id})-[t:TRANSITION]->(b:Screen)
WHERE trusted(t) AND trusted(b)
RETURN t.action AS action, t.element_id AS element_id, t.detail AS detail, b.id AS to_screen,
       t.observations AS observations, t.successes AS successes, t.failures AS failures
ORDER BY t.observations DESC
LIMIT 200
