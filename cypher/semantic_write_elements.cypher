// semantic_write_elements: an element's simulated task, risk flag and input
// parameter (a JSON string, or null for elements that take no input).
UNWIND $rows AS r
MATCH (e:Element {id: r.id})
SET e.simulated_task = r.simulated_task, e.risky = r.risky, e.parameter = r.parameter
