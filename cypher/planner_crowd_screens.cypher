// planner_crowd_screens: screens of other apps than $packages titled as one of $titles that show a
// confirm button ($confirms, lower-case words of graph/vocabulary.py): the look-alikes that may lend
// the planned app's screens a confirm their own exploration never saw (agent/crowd.py). A screen only
// contributions reported is held out until enough contributors back it, as for elements.
MATCH (s:Screen)
WHERE s.title IN $titles AND NOT s.package IN $packages
  AND (NOT coalesce(s.crowd_only, false) OR coalesce(s.crowd_trusted, false))
  AND EXISTS {
    MATCH (s)-[:HAS_ELEMENT]->(e:Element)
    WHERE toLower(coalesce(e.text, '')) IN $confirms OR toLower(coalesce(e.content_desc, '')) IN $confirms
  }
RETURN s.id AS id, s.package AS package, s.title AS title
ORDER BY id
