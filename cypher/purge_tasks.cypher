// purge_tasks: delete one contributor's demonstrations; returns their ids (for their vectors).
MATCH (k:Task {contributor: $contributor})
WITH k, k.id AS id
DETACH DELETE k
RETURN collect(id) AS ids
