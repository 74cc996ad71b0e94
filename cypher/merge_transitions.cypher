// merge_transitions: the UTG. One edge per (source screen, action signature,
// target screen); counts, devices, app versions and freshness accumulate across traces
// (staleness: refresh_stale). An edge only contributions report is `crowd_only` until a crawl
// or import sees it: plans use it once enough contributors back it (edge_crowd sets crowd_trusted).
// `variants`: the distinct "from>to" concrete variants a crawl or an import saw the action go between
// (graph/variants.py), the first 64 kept (a crawl of a screen with changing content finds no end of them).
// A contribution (r.trusted false) adds its counts (its Vote holds them: merge_votes) and its device's
// pseudonym, never `versions`, `first_seen`, `last_seen` (its times are its sender's word) or `stale`:
// the version it reports is its claim "KEY version" in `crowd_versions`, which count once a quorum of
// contributors agrees (edge_crowd's `agreed_versions`).
// `input_template` (what a typing action typed) is the public's: a crawl's, an import's or a public key's, the first
// that typed there. An edge is keyed by the action's place, not by what was typed, so keys of two tenants, or a
// tenant and the public, report one edge having typed other words: a tenant key's are its tenant's alone, kept
// in the edge's layer (`layer_input_keys`, `layer_inputs`: its first report), and read through `input_template(t)`
// (cypher/__init__.py).
UNWIND $rows AS r
MATCH (a:Screen {id: r.source}), (b:Screen {id: r.target})
WITH a, b, r, NOT r.trusted AND r.contributor CONTAINS '/' AS tenant
MERGE (a)-[t:TRANSITION {key: r.key}]->(b)
ON CREATE SET t.action = r.action, t.element_id = r.element_id, t.element_key = r.element_key,
              t.detail = r.detail, t.input_template = '', t.observations = 0,
              t.successes = 0, t.failures = 0, t.devices = [], t.versions = [], t.stale = false,
              t.crowd_only = NOT r.trusted
WITH t, r, tenant, r.contributor + ' ' + r.version AS claim,
     tenant AND r.input_template <> '' AND NOT r.contributor IN coalesce(t.layer_input_keys, [])
       AND r.input_template <> coalesce(t.input_template, '') AS layered
SET t.input_template = CASE WHEN NOT tenant AND coalesce(t.input_template, '') = '' THEN r.input_template
                            ELSE t.input_template END,
    t.layer_input_keys = CASE WHEN layered THEN coalesce(t.layer_input_keys, []) + r.contributor
                              ELSE t.layer_input_keys END,
    t.layer_inputs = CASE WHEN layered THEN coalesce(t.layer_inputs, []) + r.input_template ELSE t.layer_inputs END,
    t.crowd_only = coalesce(t.crowd_only, false) AND NOT r.trusted,
    t.crowd_keys = CASE WHEN r.trusted OR r.contributor IN coalesce(t.crowd_keys, []) THEN coalesce(t.crowd_keys, [])
                     ELSE coalesce(t.crowd_keys, []) + r.contributor END,
    t.variants = (coalesce(t.variants, []) + [v IN r.variants WHERE NOT v IN coalesce(t.variants, [])])[..64],
    t.observations = t.observations + r.observations,
    t.successes = t.successes + r.successes,
    t.failures = t.failures + r.failures,
    t.last_seen = CASE WHEN r.trusted AND (t.last_seen IS NULL OR datetime(r.last_seen) > t.last_seen)
                       THEN datetime(r.last_seen) ELSE t.last_seen END,
    t.first_seen = CASE WHEN r.trusted AND (t.first_seen IS NULL OR datetime(r.first_seen) < t.first_seen)
                        THEN datetime(r.first_seen) ELSE t.first_seen END,
    t.devices = CASE WHEN r.device IN t.devices THEN t.devices ELSE t.devices + r.device END,
    t.versions = CASE WHEN NOT r.trusted OR r.version IN t.versions THEN t.versions ELSE t.versions + r.version END,
    t.crowd_versions = CASE WHEN r.trusted OR claim IN coalesce(t.crowd_versions, []) THEN t.crowd_versions
                            ELSE coalesce(t.crowd_versions, []) + claim END
