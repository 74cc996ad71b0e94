// tenant_share_runs: the run outcomes that a tenant's keys ($prefix "NAME/") reported of stored tasks of
// $packages (task_run_outcome: one per key and task, its latest). Sharing reports each task's latest of
// them as its shared voice's one outcome (ingest/tenants.py `share`): task_run_counts then counts the
// tenant as one contributor, however many of its keys ran the task.
MATCH (o:TaskRun)
WHERE o.contributor STARTS WITH $prefix
MATCH (k:Task {id: o.task_id})
WHERE k.package IN $packages
RETURN k.id AS task_id, k.package AS package, o.ok AS ok, o.at AS at
ORDER BY task_id, at
