// merge_elements: interactive views of a screen, keyed by their structural path. An element's own
// `text`/`content_desc`/`label`/`locators`/`bounds`/`flags` are the public's report of it: the latest
// (privacy-scrubbed) observation of a crawl or import; a public key's contribution (r.trusted false) sets them
// only where no crawl, import or public key did (`text` null) and never overwrites them. `text_owner` is whose
// they are ('' a crawl's or import's, else the public key's id). A tenant key's report is never there: one
// element (one place in the view tree) may show other texts to each tenant, which are each tenant's alone. It is
// kept as a node of its own, the element's Report by that key (cypher/__init__.py FIELDS, which every read goes
// through): the key's first report of the element, where the public has none or shows other texts, keyed by key
// and element (`id`) and found by its tenant's readers by tenant and element (`slot`); `seq` orders an element's
// reports (the element's `reports` counts them as written). An element a tenant key creates holds no
// texts of its own (its locators only those naming no text; its bounds and flags its first reporter's, as no
// reader reads them but one without a report of the element: see purge_element_layers). Every text variant
// with its count is in `texts`/`text_counts` (merge_element_texts).
UNWIND $rows AS r
MATCH (s:Screen {id: r.screen_id})
WITH s, r, NOT r.trusted AND r.contributor CONTAINS '/' AS tenant
MERGE (e:Element {id: r.id})
ON CREATE SET e.screen_id = r.screen_id, e.key = r.key, e.class_name = r.class_name,
              e.resource_id = r.resource_id, e.bounds = r.bounds, e.flags = r.flags,
              e.locators = [l IN r.locators WHERE NOT (l CONTAINS '@text' OR l CONTAINS '@content-desc')],
              e.crowd_only = NOT r.trusted
WITH s, e, r, tenant,
     NOT tenant AND (r.trusted OR e.text IS NULL OR coalesce(e.text_owner, '') CONTAINS '/') AS overwrite,
     tenant AND NOT EXISTS { MATCH (x:Report) WHERE x.id = r.contributor + '|' + r.id }
       AND (e.text IS NULL OR e.text <> r.text OR e.content_desc <> r.content_desc) AS layered
SET e.text_owner = CASE WHEN overwrite THEN r.contributor ELSE e.text_owner END,
    e.text = CASE WHEN overwrite THEN r.text ELSE e.text END,
    e.content_desc = CASE WHEN overwrite THEN r.content_desc ELSE e.content_desc END,
    e.label = CASE WHEN overwrite THEN r.label ELSE e.label END,
    e.bounds = CASE WHEN overwrite THEN r.bounds ELSE e.bounds END,
    e.flags = CASE WHEN overwrite THEN r.flags ELSE e.flags END,
    e.locators = CASE WHEN overwrite THEN r.locators ELSE e.locators END,
    e.reports = CASE WHEN layered THEN coalesce(e.reports, 0) + 1 ELSE e.reports END,
    e.crowd_only = coalesce(e.crowd_only, false) AND NOT r.trusted,
    e.crowd_keys = CASE WHEN r.trusted OR r.contributor IN coalesce(e.crowd_keys, []) THEN coalesce(e.crowd_keys, [])
                     ELSE coalesce(e.crowd_keys, []) + r.contributor END
MERGE (s)-[:HAS_ELEMENT]->(e)
WITH e, r, layered
WHERE layered
CREATE (x:Report {id: r.contributor + '|' + r.id, slot: split(r.contributor, '/')[0] + '/' + r.id,
                  contributor: r.contributor, element_id: r.id, seq: e.reports, text: r.text,
                  content_desc: r.content_desc, label: r.label, bounds: r.bounds, flags: r.flags,
                  locators: r.locators})
CREATE (x)-[:OF]->(e)
