// schema: uniqueness constraints (they also keep MERGE unique under concurrent
// writers) and lookup indexes for the app-memory graph. Idempotent.
CREATE CONSTRAINT app_id IF NOT EXISTS FOR (n:App) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT screen_id IF NOT EXISTS FOR (n:Screen) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT state_id IF NOT EXISTS FOR (n:State) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT element_id IF NOT EXISTS FOR (n:Element) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT trace_id IF NOT EXISTS FOR (n:Trace) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT task_id IF NOT EXISTS FOR (n:Task) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT task_run_id IF NOT EXISTS FOR (n:TaskRun) REQUIRE n.id IS UNIQUE;
CREATE INDEX app_package IF NOT EXISTS FOR (n:App) ON (n.package);
CREATE INDEX screen_package IF NOT EXISTS FOR (n:Screen) ON (n.package);
CREATE INDEX screen_title IF NOT EXISTS FOR (n:Screen) ON (n.title);
CREATE INDEX element_screen IF NOT EXISTS FOR (n:Element) ON (n.screen_id);
CREATE INDEX trace_package IF NOT EXISTS FOR (n:Trace) ON (n.package);
CREATE INDEX task_package IF NOT EXISTS FOR (n:Task) ON (n.package);
CREATE INDEX task_run_task IF NOT EXISTS FOR (n:TaskRun) ON (n.task_id);
CREATE CONSTRAINT follow_id IF NOT EXISTS FOR (n:Follow) REQUIRE n.id IS UNIQUE;
CREATE INDEX follow_package IF NOT EXISTS FOR (n:Follow) ON (n.package);
// a tenant key's report of an element (merge_elements), found by its reader's slot (TENANT/ELEMENT) and by its key
CREATE CONSTRAINT report_id IF NOT EXISTS FOR (n:Report) REQUIRE n.id IS UNIQUE;
CREATE INDEX report_slot IF NOT EXISTS FOR (n:Report) ON (n.slot);
CREATE INDEX report_contributor IF NOT EXISTS FOR (n:Report) ON (n.contributor)
