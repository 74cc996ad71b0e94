// tenant_share_apps: the public apps ($package, or every one) whose screens a tenant's keys ($prefix "NAME/")
// back: what `appmem tenants share` may offer the crowd. An app is public when a crawl or an import saw one
// of its screens; an app only contributions reported (an in-house app) is never offered.
MATCH (s:Screen)
WHERE ($package IS NULL OR s.package = $package) AND any(k IN coalesce(s.crowd_keys, []) WHERE k STARTS WITH $prefix)
WITH DISTINCT s.package AS package
MATCH (p:Screen {package: package})
WHERE NOT coalesce(p.crowd_only, false)
RETURN DISTINCT package
ORDER BY package
