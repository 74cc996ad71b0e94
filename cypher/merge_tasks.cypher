// merge_tasks: demonstrations (gold traces, human demos, agent runs) with their ordered
// steps as STEP edges to the elements acted on, with what each element showed then.
// Provenance: the trace that showed the task and the devices it was done on;
// `successes` / `failures` count executed runs (cypher/task_run_outcome.cypher). `contributor`:
// the API key of a contributed run ('' otherwise); recall uses such a task only once it is
// crowd_trusted (task_crowd).
UNWIND $rows AS r
MERGE (k:Task {id: r.id})
ON CREATE SET k.successes = 0, k.failures = 0, k.devices = []
SET k.contributor = coalesce(r.contributor, ''), k.description = r.description, k.package = r.package, k.source = r.source, k.steps = r.steps,
    k.trace_id = coalesce(r.trace_id, k.trace_id),
    k.devices = CASE WHEN r.device IS NULL OR r.device IN coalesce(k.devices, []) THEN coalesce(k.devices, [])
                     ELSE coalesce(k.devices, []) + r.device END
WITH k, r
UNWIND r.step_rows AS s
MATCH (e:Element {id: s.element_id})
MERGE (k)-[st:STEP {index: s.index}]->(e)
SET st.action = s.action, st.input = s.input, st.text = s.text, st.content_desc = s.content_desc,
    st.locators = s.locators
