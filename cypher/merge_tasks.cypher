// merge_tasks: demonstrations (gold traces, human demos) with their ordered
// steps as STEP edges to the elements acted on.
UNWIND $rows AS r
MERGE (k:Task {id: r.id})
SET k.description = r.description, k.package = r.package, k.source = r.source, k.steps = r.steps
WITH k, r
UNWIND r.step_rows AS s
MATCH (e:Element {id: s.element_id})
MERGE (k)-[st:STEP {index: s.index}]->(e)
SET st.action = s.action, st.input = s.input
