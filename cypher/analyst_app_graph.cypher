// analyst_app_graph: an app's whole UTG as a graph (screens and transitions between them).
MATCH (:App {package: $package})-[:HAS_SCREEN]->(s:Screen)
MATCH p = (s)-[:TRANSITION]->(:Screen)
RETURN p
LIMIT 1000
