// purge_version_claims: take a purged contributor's version claims back; the versions whose
// claims changed, to be judged again (graph/version_claims.py).
MATCH (a:App)
WHERE any(c IN coalesce(a.claims, []) WHERE c STARTS WITH $prefix)
SET a.claims = [c IN a.claims WHERE NOT c STARTS WITH $prefix]
RETURN a.package AS package, a.version AS version
