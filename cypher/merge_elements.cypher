// merge_elements: interactive views of a screen, keyed by their structural
// path; `text`/`content_desc`/`label`/`locators` are the latest (privacy-scrubbed) observation
// of a crawl or import; a contribution (r.trusted false) sets them only on an element it
// creates (`crowd_only` until a crawl or import sees it) and never overwrites them, except that a
// public key's overwrites a tenant key's (a public reader may then read them). `text_owner` is whose
// they are ('' a crawl's or import's, else the contributor id): reads show a tenant key's texts to
// that tenant alone, and to everyone once it shared them (`shown(e)`, cypher/__init__.py). Every
// text variant with its count is in `texts`/`text_counts` (merge_element_texts).
UNWIND $rows AS r
MATCH (s:Screen {id: r.screen_id})
MERGE (e:Element {id: r.id})
ON CREATE SET e.screen_id = r.screen_id, e.key = r.key, e.class_name = r.class_name,
              e.resource_id = r.resource_id, e.text = r.text, e.content_desc = r.content_desc,
              e.label = r.label, e.bounds = r.bounds, e.flags = r.flags, e.locators = r.locators,
              e.crowd_only = NOT r.trusted, e.text_owner = r.contributor
WITH s, e, r, r.trusted OR e.text IS NULL OR (coalesce(e.text_owner, '') CONTAINS '/'
                                              AND NOT r.contributor CONTAINS '/') AS overwrite
SET e.text_owner = CASE WHEN overwrite THEN r.contributor ELSE coalesce(e.text_owner, '') END,
    e.text = CASE WHEN overwrite THEN r.text ELSE e.text END,
    e.content_desc = CASE WHEN overwrite THEN r.content_desc ELSE e.content_desc END,
    e.label = CASE WHEN overwrite THEN r.label ELSE e.label END,
    e.bounds = CASE WHEN overwrite THEN r.bounds ELSE e.bounds END,
    e.flags = CASE WHEN overwrite THEN r.flags ELSE e.flags END,
    e.locators = CASE WHEN overwrite THEN r.locators ELSE e.locators END,
    e.crowd_only = coalesce(e.crowd_only, false) AND NOT r.trusted,
    e.crowd_keys = CASE WHEN r.trusted OR r.contributor IN coalesce(e.crowd_keys, []) THEN coalesce(e.crowd_keys, [])
                     ELSE coalesce(e.crowd_keys, []) + r.contributor END
MERGE (s)-[:HAS_ELEMENT]->(e)
