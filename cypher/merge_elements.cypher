// merge_elements: interactive views of a screen, keyed by their structural
// path; `text`/`content_desc` are the latest (privacy-scrubbed) observation, every
// variant with its count is in `texts`/`text_counts` (merge_element_texts).
UNWIND $rows AS r
MATCH (s:Screen {id: r.screen_id})
MERGE (e:Element {id: r.id})
ON CREATE SET e.screen_id = r.screen_id, e.key = r.key, e.class_name = r.class_name,
              e.resource_id = r.resource_id
SET e.text = r.text, e.content_desc = r.content_desc, e.label = r.label, e.bounds = r.bounds,
    e.flags = r.flags, e.locators = r.locators
MERGE (s)-[:HAS_ELEMENT]->(e)
