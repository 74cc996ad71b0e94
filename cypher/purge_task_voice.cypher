// purge_task_voice: withdraw a tenant's shared voice ($contributor "tenant:NAME") from the demonstrations it
// offered (tenant_share_tasks): they are its keys' private ones again (task_crowd_all judges them again).
// Returns their ids (their vectors leave the shared collection).
MATCH (k:Task {voice: $contributor})
REMOVE k.voice
RETURN collect(k.id) AS ids
