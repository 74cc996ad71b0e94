// merge_follows: order-2 outcomes (graph/follows.py) that an import or a crawl saw: how often
// transition $rows.next followed transition $rows.prev in a trace. Written in the chunk's
// transaction, so a chunk written again counts nothing. Contributions go through follow_votes.
UNWIND $rows AS r
MERGE (f:Follow {id: r.id})
ON CREATE SET f.prev = r.prev, f.next = r.next, f.package = r.package, f.observations = 0, f.crowd_keys = [],
              f.crowd_trusted = false
SET f.observations = f.observations + r.observations
