// merge_leads_to: the ETG. Acting on an element makes these elements available
// (elements of the target screen that the source screen did not have).
UNWIND $rows AS r
MATCH (a:Element {id: r.source}), (b:Element {id: r.target})
MERGE (a)-[l:LEADS_TO {action: r.action}]->(b)
ON CREATE SET l.observations = 0
SET l.observations = l.observations + r.observations
