// task_run_purge: delete one contributor's run outcomes, and every outcome of the tasks the
// purge deleted ($tasks); returns how many, and the tasks whose counts must be recounted (task_run_counts).
MATCH (o:TaskRun)
WHERE o.contributor = $contributor OR o.task_id IN $tasks
WITH o, o.task_id AS task_id
DETACH DELETE o
RETURN count(*) AS deleted, collect(DISTINCT task_id) AS ids
