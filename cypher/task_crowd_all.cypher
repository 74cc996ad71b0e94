// task_crowd_all: recount, for every contributed demonstration, how many distinct contributors sent the
// same task (package, description) by the same steps (their number, and each step's action and element
// in order, as task_crowd compares them): after a purge, one may fall below $quorum (public
// contributors only: a tenant's are private).
MATCH (k:Task)
WHERE coalesce(k.contributor, '') <> '' AND NOT k.contributor CONTAINS '/'
CALL (k) {
  OPTIONAL MATCH (k)-[st:STEP]->(e:Element)
  WITH st, e ORDER BY st.index
  RETURN [x IN collect(coalesce(st.action, '') + '|' + e.id) WHERE x IS NOT NULL] AS path
}
WITH k.package AS package, k.description AS description, k.steps AS steps, path, collect(k) AS same,
     count(DISTINCT k.contributor) AS backers
UNWIND same AS k
SET k.crowd_trusted = backers >= $quorum
RETURN count(k) AS tasks
