// purge_element_layers: delete one contributor's reports of elements (its Report nodes, one per element at most:
// merge_elements). An element the public has no report of keeps its first remaining reporter's bounds and flags as
// its own (what a reader without a report of it reads: none of the purged key's is left).
MATCH (x:Report)-[:OF]->(e:Element)
WHERE x.contributor = $contributor
WITH x, e, CASE WHEN e.text IS NULL THEN head(COLLECT {
  MATCH (y:Report)-[:OF]->(e) WHERE y.contributor <> $contributor RETURN y ORDER BY y.seq }) END AS first
SET e.bounds = CASE WHEN first IS NOT NULL THEN first.bounds ELSE e.bounds END,
    e.flags = CASE WHEN first IS NOT NULL THEN first.flags ELSE e.flags END,
    // the count of reports written (their `seq`) goes with the last: an element keeps no trace of a purged report
    e.reports = CASE WHEN EXISTS { MATCH (y:Report)-[:OF]->(e) WHERE y.contributor <> $contributor }
                THEN e.reports END
DETACH DELETE x
RETURN count(e) AS elements
