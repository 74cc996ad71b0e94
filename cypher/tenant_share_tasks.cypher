// tenant_share_tasks: the demonstrations of $packages that a tenant's keys ($prefix "NAME/") sent, offered to the
// crowd under its shared voice ($voice "tenant:NAME"): task_crowd counts them as that one contributor's, however
// many of its keys sent the same task by the same steps. Returns the tasks, which task_crowd judges again.
MATCH (k:Task)
WHERE k.package IN $packages AND coalesce(k.contributor, '') STARTS WITH $prefix
SET k.voice = $voice
RETURN k.id AS id
