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
UNWIND $rows AS r
MATCH (a:Screen {id: r.source}), (b:Screen {id: r.target})
MERGE (a)-[t:TRANSITION {key: r.key}]->(b)
ON CREATE SET t.action = r.action, t.element_id = r.element_id, t.element_key = r.element_key,
              t.detail = r.detail, t.input_template = r.input_template, t.observations = 0,
              t.successes = 0, t.failures = 0, t.devices = [], t.versions = [], t.stale = false,
              t.crowd_only = NOT r.trusted
WITH t, r, r.contributor + ' ' + r.version AS claim
SET t.crowd_only = coalesce(t.crowd_only, false) AND NOT r.trusted,
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
