// purge_element_layers: take one contributor's reports of elements back off their layers (what merge_elements
// kept under its key id: `layer_keys` and the lists in its order, `layer_flag_keys`, `layer_locator_keys`). An
// element the public has no report of keeps its first remaining reporter's bounds and flags as its own (what a
// reader without a report of it reads: none of the purged key's is left).
MATCH (e:Element)
WHERE $contributor IN coalesce(e.layer_keys, [])
WITH e, [i IN range(0, size(e.layer_keys) - 1) WHERE e.layer_keys[i] <> $contributor] AS kept,
     [j IN range(0, size(coalesce(e.layer_flag_keys, [])) - 1) WHERE e.layer_flag_keys[j] <> $contributor] AS flags,
     [j IN range(0, size(coalesce(e.layer_locator_keys, [])) - 1) WHERE e.layer_locator_keys[j] <> $contributor]
       AS locators
WITH e, kept, [i IN kept | e.layer_keys[i]] AS keys, reduce(b = [], i IN kept | b + e.layer_bounds[4 * i .. 4 * i + 4])
       AS bounds, [j IN flags | e.layer_flags[j]] AS flag_values, [j IN flags | e.layer_flag_keys[j]] AS flag_keys,
     [j IN locators | e.layer_locators[j]] AS locator_values, [j IN locators | e.layer_locator_keys[j]] AS locator_keys,
     e.text IS NULL AND size(kept) > 0 AS unowned
SET e.layer_texts = [i IN kept | e.layer_texts[i]], e.layer_descs = [i IN kept | e.layer_descs[i]],
    e.layer_labels = [i IN kept | e.layer_labels[i]], e.layer_keys = keys, e.layer_bounds = bounds,
    e.layer_flags = flag_values, e.layer_flag_keys = flag_keys,
    e.layer_locators = locator_values, e.layer_locator_keys = locator_keys,
    e.bounds = CASE WHEN unowned THEN bounds[0 .. 4] ELSE e.bounds END,
    e.flags = CASE WHEN unowned THEN [j IN range(0, size(flag_keys) - 1) WHERE flag_keys[j] = keys[0] | flag_values[j]]
              ELSE e.flags END
RETURN count(e) AS elements
