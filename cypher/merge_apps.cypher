// merge_apps: one App node per (package, version); foreign packages reached from
// an app (launcher, system dialogs, other apps) are apps too, with version "".
// version_code: the device-reported versionCode (orders versions for staleness), when known.
UNWIND $rows AS r
MERGE (a:App {id: r.id})
ON CREATE SET a.package = r.package, a.version = r.version, a.aliases = []
SET a.version_code = coalesce(r.version_code, a.version_code)
