// all_packages: every app package in the graph, trusted or not: for upkeep that must reach what only
// contributions reported (judging it against the quorum) and for the health check.
MATCH (a:App)
RETURN DISTINCT a.package AS package
ORDER BY package
