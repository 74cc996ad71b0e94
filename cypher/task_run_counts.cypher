// task_run_counts: a stored task's successes and failures, recounted from its TaskRun outcomes
// (one per contributor: task_run_outcome). Recall ranks by them only once $quorum distinct
// contributors reported a run (`runs_trusted`): no single key raises or sinks a task for others. A tenant's
// outcomes (contributor TENANT/key) are private and never move these counts; once it shared them, its voice
// ("tenant:NAME") holds one outcome per task, its keys' latest (tenant_share_runs), counted here.
MATCH (k:Task)
WHERE k.id IN $ids
OPTIONAL MATCH (o:TaskRun {task_id: k.id})
WHERE NOT coalesce(o.contributor, '') CONTAINS '/'
WITH k, count(CASE WHEN o.ok THEN 1 END) AS successes, count(CASE WHEN o.ok = false THEN 1 END) AS failures
SET k.successes = successes, k.failures = failures, k.runs_trusted = successes + failures >= $quorum
RETURN k.id AS id, k.successes AS successes, k.failures AS failures, k.runs_trusted AS runs_trusted
