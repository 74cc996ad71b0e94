// task_crowd: a contributed demonstration counts for recall once $quorum distinct contributors sent a
// done run of the same task (package and description) by the same steps: as many, and acting the same
// way (action) on the same elements (each of one screen) in the same order. No single key decides what
// others recall, and a quorum for a task is no quorum for another way of doing it. A tenant's
// demonstrations (contributor TENANT/key) are private: they count here only once the tenant shared them,
// and then all of them as one contributor, its shared voice (`voice`, tenant_share_tasks).
MATCH (k:Task {id: $task_id})
WHERE coalesce(k.contributor, '') <> ''
CALL (k) {
  OPTIONAL MATCH (k)-[st:STEP]->(e:Element)
  WITH st, e ORDER BY st.index
  RETURN [x IN collect(coalesce(st.action, '') + '|' + e.id) WHERE x IS NOT NULL] AS path
}
MATCH (o:Task {package: k.package, description: k.description, steps: k.steps})
WHERE coalesce(o.contributor, '') <> '' AND (NOT o.contributor CONTAINS '/' OR o.voice IS NOT NULL)
CALL (o) {
  OPTIONAL MATCH (o)-[st:STEP]->(e:Element)
  WITH st, e ORDER BY st.index
  RETURN [x IN collect(coalesce(st.action, '') + '|' + e.id) WHERE x IS NOT NULL] AS other
}
WITH path, o, other
WHERE other = path
WITH collect(o) AS same, count(DISTINCT coalesce(o.voice, o.contributor)) AS backers
UNWIND same AS o
SET o.crowd_trusted = backers >= $quorum
RETURN backers
