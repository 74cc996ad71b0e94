// migrate_text_owner: elements written before each element's texts had an owner (`text_owner`,
// merge_elements.cypher). A contribution-only element's texts are its first reporter's, the first of
// its backers (crowd_keys grows in report order); any other's are a crawl's or an import's ('').
// Without this, a tenant key's texts written before would read as everyone's (`shown(e)`).
MATCH (e:Element)
WHERE e.text_owner IS NULL
SET e.text_owner = CASE WHEN coalesce(e.crowd_only, false) AND size(coalesce(e.crowd_keys, [])) > 0
                        THEN e.crowd_keys[0] ELSE '' END
RETURN count(e) AS owned
