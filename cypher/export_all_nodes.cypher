// export_all_nodes: every node of the memory with its labels and properties (appmem export --all).
// Unless $every (the operator's whole graph), only what the trust predicate admits (cypher/__init__.py,
// `public`: what every reader may read): the nodes it admits, an app version only with a screen it
// admits (as an app is listed: semantic_packages), and the states of the traces it admits.
MATCH (n)
WHERE $every OR (public(n) AND NOT n:State AND NOT n:App)
RETURN labels(n) AS labels, properties(n) AS props
UNION
MATCH (n:App)-[h:HAS_SCREEN]->(s:Screen)
WHERE NOT $every AND public(n) AND public(h) AND public(s)
RETURN labels(n) AS labels, properties(n) AS props
UNION
MATCH (t:Trace)-[:SAW]->(n:State)
WHERE NOT $every AND public(t)
RETURN labels(n) AS labels, properties(n) AS props
