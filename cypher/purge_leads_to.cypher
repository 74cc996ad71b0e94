// purge_leads_to: take one contributor's element-to-element observations back off the ETG
// (what merge_leads_to counted under its key id); an edge left with none is deleted.
MATCH (:Element)-[l:LEADS_TO]->(:Element)
WHERE $contributor IN coalesce(l.crowd_keys, [])
WITH l, [i IN range(0, size(l.crowd_keys) - 1) WHERE l.crowd_keys[i] = $contributor][0] AS mine
WITH l, l.observations - l.crowd_observations[mine] AS left,
     [i IN range(0, size(l.crowd_keys) - 1) WHERE i <> mine | l.crowd_keys[i]] AS keys,
     [i IN range(0, size(l.crowd_keys) - 1) WHERE i <> mine | l.crowd_observations[i]] AS counts
SET l.observations = left, l.crowd_keys = keys, l.crowd_observations = counts
WITH l, left
WHERE left <= 0
DELETE l
RETURN count(*) AS deleted
