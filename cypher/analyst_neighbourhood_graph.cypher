// analyst_neighbourhood_graph: a screen's neighbourhood as a graph (Neo4j Browser draws it):
// the screen, the screens one transition away either way, and its elements.
MATCH p = (s:Screen {id: $screen_id})-[:TRANSITION]-(:Screen)
RETURN p
UNION
MATCH p = (s:Screen {id: $screen_id})-[:HAS_ELEMENT]->(:Element)
RETURN p
