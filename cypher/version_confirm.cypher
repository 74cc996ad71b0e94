// version_confirm: a crawl, an import or one's own run reported this version: a name a quorum of
// contributors gave it is now its own (no longer taken back when they are purged).
MATCH (a:App {package: $package, version: $version})
SET a.trusted_name = null
