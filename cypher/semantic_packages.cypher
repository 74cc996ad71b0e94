// semantic_packages: the app packages memory names to any key (a short name like `calendar` resolves among
// these; apps, documents and summaries read these): those with a screen the trust predicate admits
// (cypher/__init__.py): a crawl or an import saw it, or a quorum of contributors backs it. One key's report
// of `com.x.calendar` lists nothing and makes no short name ambiguous (all_packages holds every one).
MATCH (a:App)
WITH DISTINCT a.package AS package
CALL (package) {
  MATCH (s:Screen {package: package})
  WHERE trusted(s)
  RETURN s.id AS shown
  LIMIT 1
}
RETURN package
ORDER BY package
