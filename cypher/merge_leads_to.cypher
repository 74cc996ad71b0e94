// merge_leads_to: the ETG. Acting on an element makes these elements available
// (elements of the target screen that the source screen did not have). What a contributor
// added is also counted under its key id (parallel lists `crowd_keys`, `crowd_observations`),
// so that a purge takes exactly that back (purge_leads_to).
UNWIND $rows AS r
MATCH (a:Element {id: r.source}), (b:Element {id: r.target})
MERGE (a)-[l:LEADS_TO {action: r.action}]->(b)
ON CREATE SET l.observations = 0
WITH l, r, coalesce(l.crowd_keys, []) AS keys, coalesce(l.crowd_observations, []) AS counts,
     coalesce(r.contributor, '') AS contributor
SET l.observations = l.observations + r.observations,
    l.crowd_keys = CASE WHEN contributor = '' OR contributor IN keys THEN keys ELSE keys + contributor END,
    l.crowd_observations = CASE WHEN contributor = '' THEN counts
                                WHEN contributor IN keys THEN [i IN range(0, size(keys) - 1) |
                                     CASE WHEN keys[i] = contributor THEN counts[i] + r.observations ELSE counts[i] END]
                                ELSE counts + r.observations END
