// semantic_packages: every app package in the graph (to resolve `--app calendar`).
MATCH (a:App)
RETURN DISTINCT a.package AS package
ORDER BY package
