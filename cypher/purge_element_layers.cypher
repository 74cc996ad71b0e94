// purge_element_layers: take one contributor's reports of elements back off their layers (what merge_elements
// kept under its key id: `layer_keys` and the lists in its order). An element the public has no report of keeps its
// first remaining reporter's bounds and flags as its own (what a reader without a report of it reads: none of the
// purged key's is left).
MATCH (e:Element)
WHERE $contributor IN coalesce(e.layer_keys, [])
WITH e, [i IN range(0, size(e.layer_keys) - 1) WHERE e.layer_keys[i] <> $contributor] AS kept
WITH e, kept, reduce(b = [], i IN kept | b + e.layer_bounds[4 * i .. 4 * i + 4]) AS bounds,
     [i IN kept | e.layer_flag_sets[i]] AS flag_sets, e.text IS NULL AND size(kept) > 0 AS unowned
SET e.layer_texts = [i IN kept | e.layer_texts[i]], e.layer_descs = [i IN kept | e.layer_descs[i]],
    e.layer_labels = [i IN kept | e.layer_labels[i]], e.layer_keys = [i IN kept | e.layer_keys[i]],
    e.layer_bounds = bounds, e.layer_flag_sets = flag_sets,
    e.layer_locator_sets = [i IN kept | e.layer_locator_sets[i]],
    e.bounds = CASE WHEN unowned THEN bounds[0 .. 4] ELSE e.bounds END,
    // the values of a layer_flag_sets entry (cypher/__init__.py SET_SEP)
    e.flags = CASE WHEN unowned THEN tail(split(flag_sets[0], '\u001F')) ELSE e.flags END
RETURN count(e) AS elements
