// task_run_outcome: a contributor's executed run of a stored task (an agent replayed the plan
// that recalled it, and named the task in its run trace). A contributor holds one outcome per
// task, its latest (by the run's end, canonical UTC), so one key moves a task's counts by one at
// most and a later run of the same key replaces its earlier outcome (task_run_counts recounts).
// A task of another app than the run's is not counted.
MATCH (k:Task {id: $task_id, package: $package})
MERGE (o:TaskRun {id: $id})
ON CREATE SET o.task_id = k.id, o.contributor = $contributor, o.ok = $ok, o.at = $at
WITH k, o, $at >= o.at AS later
SET o.ok = CASE WHEN later THEN $ok ELSE o.ok END, o.at = CASE WHEN later THEN $at ELSE o.at END
RETURN k.id AS id
