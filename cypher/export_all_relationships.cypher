// export_all_relationships: every relationship, its end nodes named by their `id` key; unless $every, only
// those the trust predicate admits between nodes it admits (analyst/subgraph.py keeps those between exported
// nodes).
MATCH (a)-[r]->(b)
WHERE $every OR (public(r) AND public(a) AND public(b))
RETURN type(r) AS type, a.id AS start, labels(a) AS start_labels, b.id AS end, labels(b) AS end_labels,
       properties(r) AS props
