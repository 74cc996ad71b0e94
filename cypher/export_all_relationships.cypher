// export_all_relationships: every relationship, its end nodes named by their `id` key.
MATCH (a)-[r]->(b)
RETURN type(r) AS type, a.id AS start, labels(a) AS start_labels, b.id AS end, labels(b) AS end_labels,
       properties(r) AS props
