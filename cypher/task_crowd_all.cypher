// task_crowd_all: recount, for every contributed demonstration, how many distinct contributors
// sent the same task (package, description, steps): after a purge, one may fall below $quorum (public
// contributors only: a tenant's are private).
MATCH (k:Task)
WHERE coalesce(k.contributor, '') <> '' AND NOT k.contributor CONTAINS '/'
WITH k.package AS package, k.description AS description, k.steps AS steps, collect(k) AS same,
     count(DISTINCT k.contributor) AS backers
UNWIND same AS k
SET k.crowd_trusted = backers >= $quorum
RETURN count(k) AS tasks
