// serve_screen_exits: where a screen's transitions lead, with their counts (`counts`: graph/votes.py
// shown_counts), the most seen by crawls and imports first: the edges and target screens the trust predicate
// admits (cypher/__init__.py).
MATCH (s:Screen {id: $screen_id})-[t:TRANSITION]->(b:Screen)
WHERE trusted(t) AND trusted(b)
RETURN t.action AS action, t.element_id AS element_id, t.detail AS detail, b.id AS to_screen, counts(t) AS counts
ORDER BY t.observations - coalesce(t.contributed_successes, 0) - coalesce(t.contributed_failures, 0) DESC, t.key
LIMIT 200
