// migrate_edge_inputs: typing edges written before what a tenant's key typed was kept in the edge's layer
// (merge_transitions.cypher), which only contributions report and a tenant's key reported first (the first of
// their backers, as crowd_keys grows in report order): what it typed, kept as the edge's own `input_template`,
// moves to the layer as that key's first report. (An edge a crawl or import has seen since keeps its
// template: whose it is was not recorded.)
MATCH (:Screen)-[t:TRANSITION]->(:Screen)
WHERE coalesce(t.crowd_only, false) AND coalesce(t.input_template, '') <> ''
  AND size(coalesce(t.crowd_keys, [])) > 0 AND t.crowd_keys[0] CONTAINS '/'
WITH t, t.crowd_keys[0] AS owner, t.input_template AS typed
SET t.layer_input_keys = CASE WHEN owner IN coalesce(t.layer_input_keys, []) THEN t.layer_input_keys
                              ELSE [owner] + coalesce(t.layer_input_keys, []) END,
    t.layer_inputs = CASE WHEN owner IN coalesce(t.layer_input_keys, []) THEN t.layer_inputs
                          ELSE [typed] + coalesce(t.layer_inputs, []) END,
    t.input_template = ''
RETURN count(t) AS moved
