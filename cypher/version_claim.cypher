// version_claim: a contributor's device reported version $claimed for screens that the version
// $version (named by an import, or by earlier claims) holds: kept as the claim "key version".
MATCH (a:App {package: $package, version: $version})
SET a.claims = CASE WHEN $claim IN coalesce(a.claims, []) THEN a.claims ELSE coalesce(a.claims, []) + $claim END
RETURN a.claims AS claims
