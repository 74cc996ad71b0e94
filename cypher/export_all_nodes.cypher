// export_all_nodes: every node of the memory with its labels and properties (appmem export --all).
MATCH (n)
RETURN labels(n) AS labels, properties(n) AS props
