// purge_crowd_edges: delete edges only contributions reported and no contributor is left behind.
MATCH (:Screen)-[t:TRANSITION]->(:Screen)
WHERE coalesce(t.crowd_only, false) AND size(coalesce(t.crowd_keys, [])) = 0
DELETE t
RETURN count(*) AS deleted
