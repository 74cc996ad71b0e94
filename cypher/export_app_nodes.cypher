// export_app_nodes: the nodes of one package's memory: its App versions, their traces, the
// states those saw and the screens of those states (foreign ones with their App), the
// app's own screens, the elements of all these screens, and the package's tasks.
MATCH (n:App {package: $package}) RETURN labels(n) AS labels, properties(n) AS props
UNION
MATCH (:App {package: $package})<-[:OF_APP]-(n:Trace) RETURN labels(n) AS labels, properties(n) AS props
UNION
MATCH (:App {package: $package})<-[:OF_APP]-(:Trace)-[:SAW]->(n:State)
RETURN labels(n) AS labels, properties(n) AS props
UNION
MATCH (:App {package: $package})<-[:OF_APP]-(:Trace)-[:SAW]->(:State)-[:OF_SCREEN]->(n:Screen)
RETURN labels(n) AS labels, properties(n) AS props
UNION
MATCH (:App {package: $package})<-[:OF_APP]-(:Trace)-[:SAW]->(:State)-[:OF_SCREEN]->(:Screen)<-[:HAS_SCREEN]-(n:App)
RETURN labels(n) AS labels, properties(n) AS props
UNION
MATCH (:App {package: $package})<-[:OF_APP]-(:Trace)-[:SAW]->(:State)-[:OF_SCREEN]->(:Screen)-[:HAS_ELEMENT]->(n:Element)
RETURN labels(n) AS labels, properties(n) AS props
UNION
MATCH (:App {package: $package})-[:HAS_SCREEN]->(n:Screen) RETURN labels(n) AS labels, properties(n) AS props
UNION
MATCH (:App {package: $package})-[:HAS_SCREEN]->(:Screen)-[:HAS_ELEMENT]->(n:Element)
RETURN labels(n) AS labels, properties(n) AS props
UNION
MATCH (n:Task {package: $package}) RETURN labels(n) AS labels, properties(n) AS props
