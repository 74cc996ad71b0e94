// task_crowd: a contributed demonstration counts for recall once $quorum distinct contributors
// sent a done run of the same task (package and description) in the same number of steps:
// no single key decides what others recall. A tenant's demonstrations (contributor TENANT/key) are private:
// they never count here.
MATCH (k:Task {id: $task_id})
WHERE coalesce(k.contributor, '') <> ''
MATCH (o:Task {package: k.package, description: k.description, steps: k.steps})
WHERE coalesce(o.contributor, '') <> '' AND NOT o.contributor CONTAINS '/'
WITH collect(o) AS same, count(DISTINCT o.contributor) AS backers
UNWIND same AS o
SET o.crowd_trusted = backers >= $quorum
RETURN backers
