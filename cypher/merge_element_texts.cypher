// merge_element_texts: every text variant an element showed, with how many observations
// showed it (parallel lists `texts`, `text_counts`; properties cannot hold maps). A row
// carries one element's variants of one chunk, already summed.
UNWIND $rows AS r
MATCH (e:Element {id: r.id})
WITH e, reduce(acc = {t: coalesce(e.texts, []), c: coalesce(e.text_counts, [])}, k IN range(0, size(r.texts) - 1) |
       CASE WHEN r.texts[k] IN acc.t
            THEN {t: acc.t, c: [i IN range(0, size(acc.c) - 1) |
                                CASE WHEN acc.t[i] = r.texts[k] THEN acc.c[i] + r.counts[k] ELSE acc.c[i] END]}
            ELSE {t: acc.t + r.texts[k], c: acc.c + r.counts[k]} END) AS acc
SET e.texts = acc.t, e.text_counts = acc.c
