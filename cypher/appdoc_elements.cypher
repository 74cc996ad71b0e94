// appdoc_elements: the screens seen in an app version and their elements with what acting on each
// opens (screens other than its own) and how often that was seen (`counts`: graph/votes.py shown_counts):
// the app document. Only what the trust predicate admits (cypher/__init__.py): one key's screens,
// elements, edges and counts reach no document.
// An element's texts, bounds and flags as its reader reads them (text(e), ...: cypher/__init__.py FIELDS).
MATCH (s:Screen {package: $package})-[:HAS_ELEMENT]->(e:Element)
WHERE ($version IN coalesce(s.versions, []) + coalesce(s.agreed_versions, []) OR s.app_version = $version)
  AND trusted(s) AND trusted(e)
OPTIONAL MATCH (s)-[t:TRANSITION {element_id: e.id}]->(d:Screen)
WHERE d.id <> s.id AND trusted(t) AND trusted(d)
RETURN s.id AS screen_id, title(s) AS title, s.summary AS summary, e.id AS element_id, label(e) AS label,
       e.simulated_task AS description, locators(e) AS locators, flags(e) AS flags,
       [x IN collect({screen_id: d.id, title: title(d), counts: counts(t)}) WHERE x.screen_id IS NOT NULL]
       AS opens
ORDER BY screen_id, element_id
