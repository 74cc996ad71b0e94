// migrate_layer_reports: elements whose tenants' reports are kept in the element's own layer lists (written before
// each report was a node of its own: `layer_keys` and, in its order, `layer_texts`, `layer_descs`, `layer_labels`,
// four `layer_bounds` each, one entry each of `layer_flag_sets` and `layer_locator_sets` with every value after a
// U+001F): each entry becomes the key's Report of the element as merge_elements writes it (its place in the lists
// its `seq`), and the lists go. Readers read only Report nodes (cypher/__init__.py FIELDS): without this, a tenant
// would read its reports of elements written before as none.
MATCH (e:Element)
WHERE e.layer_keys IS NOT NULL
WITH e, coalesce(e.reports, 0) AS before
FOREACH (i IN range(0, size(e.layer_keys) - 1) |
  MERGE (x:Report {id: e.layer_keys[i] + '|' + e.id})
  ON CREATE SET x.slot = split(e.layer_keys[i], '/')[0] + '/' + e.id, x.contributor = e.layer_keys[i],
                x.element_id = e.id, x.seq = before + i + 1, x.text = e.layer_texts[i],
                x.content_desc = coalesce(e.layer_descs[i], ''), x.label = coalesce(e.layer_labels[i], ''),
                x.bounds = coalesce(e.layer_bounds, [])[4 * i .. 4 * i + 4],
                x.flags = tail(split(coalesce(e.layer_flag_sets[i], ''), '\u001F')),
                x.locators = tail(split(coalesce(e.layer_locator_sets[i], ''), '\u001F'))
  MERGE (x)-[:OF]->(e))
SET e.reports = before + size(e.layer_keys)
REMOVE e.layer_keys, e.layer_texts, e.layer_descs, e.layer_labels, e.layer_bounds, e.layer_flag_sets,
       e.layer_locator_sets
RETURN count(e) AS moved
