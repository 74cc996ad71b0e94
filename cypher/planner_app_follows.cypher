// planner_app_follows: the order-2 outcomes of actions on screens of $packages (graph/follows.py):
// how often transition `next` followed transition `prev`, counting what imports and crawls saw,
// and each contributor once when a quorum of them back the pair (follow_votes).
MATCH (f:Follow)
WHERE f.package IN $packages
  AND (f.observations > 0 OR f.crowd_trusted)
RETURN f.prev AS prev, f.next AS next,
       f.observations + CASE WHEN f.crowd_trusted THEN size(f.crowd_keys) ELSE 0 END AS observations
ORDER BY prev, next
