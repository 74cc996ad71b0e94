// task_steps: the demonstrations of an app with their ordered steps and the elements acted on.
MATCH (k:Task {package: $package})
OPTIONAL MATCH (k)-[st:STEP]->(e:Element)
WITH k, st, e ORDER BY st.index
RETURN k.id AS id, k.description AS description, k.steps AS steps,
       collect({index: st.index, action: st.action, input: st.input, element: e.label, element_id: e.id}) AS path
