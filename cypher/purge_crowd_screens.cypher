// purge_crowd_screens: delete screens only contributions reported and no contributor is left
// behind, with their remaining states and edges; returns their ids.
MATCH (s:Screen)
WHERE coalesce(s.crowd_only, false) AND size(coalesce(s.crowd_keys, [])) = 0
OPTIONAL MATCH (st:State)-[:OF_SCREEN]->(s)
DETACH DELETE st
WITH DISTINCT s, s.id AS id
DETACH DELETE s
RETURN collect(id) AS ids
