// export_all_nodes: every node of the memory with its labels and properties (appmem export --all).
// Unless $every (the operator's whole graph), only what the trust predicate admits (cypher/__init__.py,
// `public`: what every reader may read): the nodes it admits, an app version only with a screen it
// admits (as an app is listed: semantic_packages), and the states of the traces it admits. An order-2 outcome
// (Follow) only contributions report counts once a quorum of public contributors backs it (follow_votes;
// planner_app_follows reads the same): before, it is no reader's (a tenant's keys' are its own).
MATCH (n)
WHERE $every OR (public(n) AND NOT n:State AND NOT n:App
                 AND NOT (n:Follow AND NOT (coalesce(n.observations, 0) > 0 OR coalesce(n.crowd_trusted, false))))
RETURN labels(n) AS labels, properties(n) AS props
UNION
MATCH (n:App)-[h:HAS_SCREEN]->(s:Screen)
WHERE NOT $every AND public(n) AND public(h) AND public(s)
RETURN labels(n) AS labels, properties(n) AS props
UNION
MATCH (t:Trace)-[:SAW]->(n:State)
WHERE NOT $every AND public(t)
RETURN labels(n) AS labels, properties(n) AS props
