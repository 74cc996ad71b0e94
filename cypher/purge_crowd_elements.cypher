// purge_crowd_elements: delete elements only contributions reported and no contributor is left
// behind, and every element of a screen about to go (purge_crowd_screens); returns their ids.
MATCH (s:Screen)-[:HAS_ELEMENT]->(e:Element)
WHERE coalesce(e.crowd_only, false) AND size(coalesce(e.crowd_keys, [])) = 0
   OR coalesce(s.crowd_only, false) AND size(coalesce(s.crowd_keys, [])) = 0
WITH DISTINCT e, e.id AS id
DETACH DELETE e
RETURN collect(id) AS ids
