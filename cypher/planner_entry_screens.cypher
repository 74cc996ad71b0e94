// planner_entry_screens: where recorded runs entered the app (their first step on
// one of its screens), most frequent first: the default start of a plan.
MATCH (t:Trace)-[:OF_APP]->(a:App)
WHERE a.package IN $packages AND t.entry_screen IS NOT NULL AND coalesce(t.contributor, '') = ''
// (a contributed trace does not say where the app starts: one key's many runs would move it)
RETURN t.entry_screen AS screen_id, count(*) AS runs
ORDER BY runs DESC, screen_id
