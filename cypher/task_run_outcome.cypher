// task_run_outcome: an executed run of a stored task (an agent replayed its plan) adds
// to its success or failure count and to the devices it was done on.
MATCH (k:Task {id: $task_id})
SET k.successes = coalesce(k.successes, 0) + CASE WHEN $ok THEN 1 ELSE 0 END,
    k.failures = coalesce(k.failures, 0) + CASE WHEN $ok THEN 0 ELSE 1 END,
    k.devices = CASE WHEN $device IS NULL OR $device IN coalesce(k.devices, []) THEN coalesce(k.devices, [])
                     ELSE coalesce(k.devices, []) + $device END
RETURN k.id AS id, k.successes AS successes, k.failures AS failures, k.devices AS devices
