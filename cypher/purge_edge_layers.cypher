// purge_edge_layers: take what one contributor typed on edges back off their layers (merge_transitions:
// `layer_input_keys`, `layer_inputs` in its order).
MATCH (:Screen)-[t:TRANSITION]->(:Screen)
WHERE $contributor IN coalesce(t.layer_input_keys, [])
WITH t, [i IN range(0, size(t.layer_input_keys) - 1) WHERE t.layer_input_keys[i] <> $contributor] AS kept
SET t.layer_inputs = [i IN kept | t.layer_inputs[i]], t.layer_input_keys = [i IN kept | t.layer_input_keys[i]]
RETURN count(t) AS edges
