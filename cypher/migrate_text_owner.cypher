// migrate_text_owner: elements whose own texts a tenant's key reported, written before a tenant key's report
// was kept in the element's layer (merge_elements.cypher), or before texts had an owner (`text_owner`: a
// contribution-only element's texts are then its first reporter's, the first of its backers, as crowd_keys grows
// in report order; any other's are a crawl's or an import's, ''). A tenant key's texts, bounds, flags and locators
// move to the element's layer lists as its first report (migrate_layer_reports, run next, makes it a Report
// node), where that key still backs the element (else they go: nothing else of a purged key's is kept); the element keeps no texts of its own, and only the locators naming none.
// Without this, reads would take a tenant key's texts written before for no one's (cypher/__init__.py FIELDS).
MATCH (e:Element)
WHERE e.text IS NOT NULL AND (e.text_owner IS NULL OR e.text_owner CONTAINS '/')
WITH e, coalesce(e.text_owner, CASE WHEN coalesce(e.crowd_only, false) AND size(coalesce(e.crowd_keys, [])) > 0
                                    THEN e.crowd_keys[0] ELSE '' END) AS owner
WITH e, owner, owner CONTAINS '/' AS tenant,
     owner CONTAINS '/' AND owner IN coalesce(e.crowd_keys, []) AND NOT owner IN coalesce(e.layer_keys, [])
       AND NOT EXISTS { MATCH (x:Report) WHERE x.id = owner + '|' + e.id } AS moved,
     e.text AS text, e.content_desc AS content_desc, e.label AS label, coalesce(e.bounds, [0, 0, 0, 0]) AS bounds,
     coalesce(e.flags, []) AS flags, coalesce(e.locators, []) AS locators
SET e.layer_keys = CASE WHEN moved THEN [owner] + coalesce(e.layer_keys, []) ELSE e.layer_keys END,
    e.layer_texts = CASE WHEN moved THEN [text] + coalesce(e.layer_texts, []) ELSE e.layer_texts END,
    e.layer_descs = CASE WHEN moved THEN [coalesce(content_desc, '')] + coalesce(e.layer_descs, []) ELSE e.layer_descs END,
    e.layer_labels = CASE WHEN moved THEN [coalesce(label, '')] + coalesce(e.layer_labels, []) ELSE e.layer_labels END,
    e.layer_bounds = CASE WHEN moved THEN bounds + coalesce(e.layer_bounds, []) ELSE e.layer_bounds END,
    // one entry each, every value after a U+001F (as merge_elements writes them)
    e.layer_flag_sets = CASE WHEN moved THEN [reduce(v = '', f IN flags | v + '\u001F' + f)]
                               + coalesce(e.layer_flag_sets, []) ELSE e.layer_flag_sets END,
    e.layer_locator_sets = CASE WHEN moved THEN [reduce(v = '', l IN locators | v + '\u001F' + l)]
                                  + coalesce(e.layer_locator_sets, []) ELSE e.layer_locator_sets END,
    e.text_owner = CASE WHEN tenant THEN null ELSE owner END,
    e.text = CASE WHEN tenant THEN null ELSE text END,
    e.content_desc = CASE WHEN tenant THEN null ELSE content_desc END,
    e.label = CASE WHEN tenant THEN null ELSE label END,
    e.locators = CASE WHEN tenant THEN [l IN locators WHERE NOT (l CONTAINS '@text' OR l CONTAINS '@content-desc')]
                 ELSE locators END
RETURN count(e) AS owned
