// task_crowd_all: recount, for every contributed demonstration, how many distinct contributors sent the
// same task (package, description) by the same steps (their number, and each step's action and element
// in order, as task_crowd compares them): after a purge, one may fall below $quorum (public
// contributors only, a tenant's demonstrations as one, once it shared them: task_crowd; a tenant's
// unshared demonstration is never trusted).
MATCH (k:Task)
WHERE coalesce(k.contributor, '') <> ''
CALL (k) {
  OPTIONAL MATCH (k)-[st:STEP]->(e:Element)
  WITH st, e ORDER BY st.index
  RETURN [x IN collect(coalesce(st.action, '') + '|' + e.id) WHERE x IS NOT NULL] AS path
}
WITH k, path, NOT k.contributor CONTAINS '/' OR k.voice IS NOT NULL AS voiced
WITH k.package AS package, k.description AS description, k.steps AS steps, path, collect([k, voiced]) AS same,
     count(DISTINCT CASE WHEN voiced THEN coalesce(k.voice, k.contributor) END) AS backers
UNWIND same AS pair
WITH pair[0] AS k, pair[1] AS voiced, backers
SET k.crowd_trusted = voiced AND backers >= $quorum
RETURN count(k) AS tasks
