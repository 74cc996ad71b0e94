// recall_tasks: stored demonstrations by id, with provenance, run counts and their
// ordered steps: the element acted on, its screen (package, versions seen in, signature)
// and what it showed when the demonstration acted on it (text, description, locators).
// A contributed task is recalled only once enough contributors did the same task (task_crowd);
// its run counts rank it only once enough contributors reported a run of it (task_run_counts).
// `public`: the shared memory's (else the reading tenant's own: its steps' `layer` where no edge says).
// An element's texts, bounds and flags as its reader reads them (text(e), ...: cypher/__init__.py FIELDS).
MATCH (k:Task)
WHERE k.id IN $ids AND trusted(k)
OPTIONAL MATCH (k)-[st:STEP]->(e:Element)<-[:HAS_ELEMENT]-(s:Screen)
WITH k, st, e, s ORDER BY st.index
RETURN k.id AS id, k.description AS description, k.package AS package, k.source AS source,
       k.trace_id AS trace_id, coalesce(k.devices, []) AS devices, coalesce(k.successes, 0) AS successes,
       coalesce(k.failures, 0) AS failures, coalesce(k.runs_trusted, false) AS runs_trusted,
       k.steps AS step_count, public(k) AS public,
       [x IN collect({index: st.index, action: st.action, input: st.input, element_id: e.id, key: e.key,
                      label: label(e), text: st.text, content_desc: st.content_desc,
                      locators: st.locators,
                      screen_id: s.id, package: s.package, app_version: s.app_version, signature: s.signature,
                      versions: coalesce(s.versions, []) + coalesce(s.agreed_versions, [])})
        WHERE x.element_id IS NOT NULL] AS steps
