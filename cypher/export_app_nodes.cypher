// export_app_nodes: the nodes of one package's memory: its App versions, their traces, the
// states those saw and the screens of those states (foreign ones with their App), the
// app's own screens, the elements of all these screens, and the package's tasks. Unless
// $every (the operator's whole graph), only what the trust predicate admits (cypher/__init__.py,
// `public`: what every reader may read), each node reached through admitted ones, an app version only
// with a screen it admits (as an app is listed: semantic_packages). Tenant keys' reports of the app's elements
// (Report nodes: merge_elements) only in the operator's whole graph ($every): no reader but their tenant's reads one.
MATCH (n:App {package: $package}) WHERE $every
RETURN labels(n) AS labels, properties(n) AS props
UNION
MATCH (n:App {package: $package})-[h:HAS_SCREEN]->(s:Screen) WHERE NOT $every AND public(n) AND public(h) AND public(s)
RETURN labels(n) AS labels, properties(n) AS props
UNION
MATCH (a:App {package: $package})<-[:OF_APP]-(n:Trace) WHERE $every OR (public(a) AND public(n))
RETURN labels(n) AS labels, properties(n) AS props
UNION
MATCH (a:App {package: $package})<-[:OF_APP]-(t:Trace)-[:SAW]->(n:State) WHERE $every OR (public(a) AND public(t))
RETURN labels(n) AS labels, properties(n) AS props
UNION
MATCH (a:App {package: $package})<-[:OF_APP]-(t:Trace)-[:SAW]->(:State)-[:OF_SCREEN]->(n:Screen)
WHERE $every OR (public(a) AND public(t) AND public(n))
RETURN labels(n) AS labels, properties(n) AS props
UNION
MATCH (a:App {package: $package})<-[:OF_APP]-(t:Trace)-[:SAW]->(:State)-[:OF_SCREEN]->(s:Screen)<-[h:HAS_SCREEN]-(n:App)
WHERE $every OR (public(a) AND public(t) AND public(s) AND public(h) AND public(n))
RETURN labels(n) AS labels, properties(n) AS props
UNION
MATCH (a:App {package: $package})<-[:OF_APP]-(t:Trace)-[:SAW]->(:State)-[:OF_SCREEN]->(s:Screen)-[:HAS_ELEMENT]->(n:Element)
WHERE $every OR (public(a) AND public(t) AND public(s) AND public(n))
RETURN labels(n) AS labels, properties(n) AS props
UNION
MATCH (a:App {package: $package})-[h:HAS_SCREEN]->(n:Screen) WHERE $every OR (public(a) AND public(h) AND public(n))
RETURN labels(n) AS labels, properties(n) AS props
UNION
MATCH (a:App {package: $package})-[h:HAS_SCREEN]->(s:Screen)-[:HAS_ELEMENT]->(n:Element)
WHERE $every OR (public(a) AND public(h) AND public(s) AND public(n))
RETURN labels(n) AS labels, properties(n) AS props
UNION
MATCH (n:Task {package: $package}) WHERE $every OR public(n)
RETURN labels(n) AS labels, properties(n) AS props
UNION
MATCH (a:App {package: $package})-[:HAS_SCREEN]->(:Screen)-[:HAS_ELEMENT]->(:Element)<-[:OF]-(n:Report) WHERE $every
RETURN labels(n) AS labels, properties(n) AS props
