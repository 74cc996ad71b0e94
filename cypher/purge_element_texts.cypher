// purge_element_texts: take one contributor's text variants back off the elements (what
// merge_element_texts kept under "KEYID|"): counts go down by exactly what it added, a variant
// left with none goes, and its own entries go.
MATCH (e:Element)
WHERE any(k IN coalesce(e.crowd_texts, []) WHERE k STARTS WITH $contributor + '|')
WITH e, [i IN range(0, size(e.crowd_texts) - 1) WHERE e.crowd_texts[i] STARTS WITH $contributor + '|'] AS mine
WITH e, mine, [i IN mine | substring(e.crowd_texts[i], size($contributor) + 1)] AS texts,
     [i IN mine | e.crowd_text_counts[i]] AS counts
WITH e, mine, [j IN range(0, size(coalesce(e.texts, [])) - 1) |
               e.text_counts[j] - reduce(n = 0, i IN range(0, size(texts) - 1) |
                                         n + CASE WHEN texts[i] = e.texts[j] THEN counts[i] ELSE 0 END)] AS left
WITH e, [j IN range(0, size(left) - 1) WHERE left[j] > 0 | e.texts[j]] AS kept_texts,
     [c IN left WHERE c > 0] AS kept_counts,
     [i IN range(0, size(e.crowd_texts) - 1) WHERE NOT i IN mine | e.crowd_texts[i]] AS own_texts,
     [i IN range(0, size(e.crowd_texts) - 1) WHERE NOT i IN mine | e.crowd_text_counts[i]] AS own_counts
SET e.texts = kept_texts, e.text_counts = kept_counts, e.crowd_texts = own_texts, e.crowd_text_counts = own_counts
RETURN count(e) AS elements
