// merge_element_texts: every text variant an element showed, with how many observations
// showed it (parallel lists `texts`, `text_counts`; properties cannot hold maps). A row
// carries one element's variants of one chunk, already summed. What a contributor added is
// also kept under its key id (`crowd_texts`: "KEYID|text", `crowd_text_counts`), so that a
// purge takes exactly that back (purge_element_texts).
UNWIND $rows AS r
MATCH (e:Element {id: r.id})
WITH e, r, CASE WHEN coalesce(r.contributor, '') = '' THEN [] ELSE [t IN r.texts | r.contributor + '|' + t] END AS keyed
WITH e, r, keyed,
     reduce(acc = {t: coalesce(e.texts, []), c: coalesce(e.text_counts, [])}, k IN range(0, size(r.texts) - 1) |
       CASE WHEN r.texts[k] IN acc.t
            THEN {t: acc.t, c: [i IN range(0, size(acc.c) - 1) |
                                CASE WHEN acc.t[i] = r.texts[k] THEN acc.c[i] + r.counts[k] ELSE acc.c[i] END]}
            ELSE {t: acc.t + r.texts[k], c: acc.c + r.counts[k]} END) AS acc
WITH e, acc,
     reduce(own = {t: coalesce(e.crowd_texts, []), c: coalesce(e.crowd_text_counts, [])}, k IN range(0, size(keyed) - 1) |
       CASE WHEN keyed[k] IN own.t
            THEN {t: own.t, c: [i IN range(0, size(own.c) - 1) |
                                CASE WHEN own.t[i] = keyed[k] THEN own.c[i] + r.counts[k] ELSE own.c[i] END]}
            ELSE {t: own.t + keyed[k], c: own.c + r.counts[k]} END) AS own
SET e.texts = acc.t, e.text_counts = acc.c, e.crowd_texts = own.t, e.crowd_text_counts = own.c
