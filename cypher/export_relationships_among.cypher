// export_relationships_among: the relationships between the given nodes (by `id`), each
// start label looked up through its uniqueness constraint; unless $every, only those the trust
// predicate admits (cypher/__init__.py, `public`).
MATCH (a:App)-[r]->(b) WHERE a.id IN $ids AND b.id IN $ids AND ($every OR public(r))
RETURN type(r) AS type, a.id AS start, labels(a) AS start_labels, b.id AS end, labels(b) AS end_labels,
       properties(r) AS props
UNION ALL
MATCH (a:Screen)-[r]->(b) WHERE a.id IN $ids AND b.id IN $ids AND ($every OR public(r))
RETURN type(r) AS type, a.id AS start, labels(a) AS start_labels, b.id AS end, labels(b) AS end_labels,
       properties(r) AS props
UNION ALL
MATCH (a:State)-[r]->(b) WHERE a.id IN $ids AND b.id IN $ids AND ($every OR public(r))
RETURN type(r) AS type, a.id AS start, labels(a) AS start_labels, b.id AS end, labels(b) AS end_labels,
       properties(r) AS props
UNION ALL
MATCH (a:Element)-[r]->(b) WHERE a.id IN $ids AND b.id IN $ids AND ($every OR public(r))
RETURN type(r) AS type, a.id AS start, labels(a) AS start_labels, b.id AS end, labels(b) AS end_labels,
       properties(r) AS props
UNION ALL
MATCH (a:Trace)-[r]->(b) WHERE a.id IN $ids AND b.id IN $ids AND ($every OR public(r))
RETURN type(r) AS type, a.id AS start, labels(a) AS start_labels, b.id AS end, labels(b) AS end_labels,
       properties(r) AS props
UNION ALL
MATCH (a:Task)-[r]->(b) WHERE a.id IN $ids AND b.id IN $ids AND ($every OR public(r))
RETURN type(r) AS type, a.id AS start, labels(a) AS start_labels, b.id AS end, labels(b) AS end_labels,
       properties(r) AS props
UNION ALL
MATCH (a:Report)-[r]->(b) WHERE a.id IN $ids AND b.id IN $ids AND ($every OR public(r))
RETURN type(r) AS type, a.id AS start, labels(a) AS start_labels, b.id AS end, labels(b) AS end_labels,
       properties(r) AS props
