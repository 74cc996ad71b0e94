// planner_app_transitions: the UTG edges that leave screens of $packages (into any package:
// launcher, system dialogs), with their outcome counts (contributions weighed per
// contributor: graph/votes.py), for routes ranked by reliability.
// `stale` is absent until versions are tracked: missing means fresh.
MATCH (a:Screen)-[t:TRANSITION]->(b:Screen)
WHERE a.package IN $packages
RETURN t.key AS key, a.id AS source, b.id AS target, b.package AS target_package, coalesce(title(b), '') AS target_title,
       t.action AS action, coalesce(t.element_id, '') AS element_id, coalesce(t.detail, '') AS detail,
       input_template(t) AS input_template, coalesce(t.observations, 0) AS observations,
       coalesce(t.successes, 0) AS successes, coalesce(t.failures, 0) AS failures,
       coalesce(t.stale, false) AS stale,
       // contributed traces count once per contributor (graph/votes.py folds these)
       coalesce(t.crowd_successes, 0.0) AS crowd_successes, coalesce(t.crowd_failures, 0.0) AS crowd_failures,
       coalesce(t.contributed_successes, 0) AS contributed_successes,
       coalesce(t.contributed_failures, 0) AS contributed_failures,
       // only contributions report it / enough distinct contributors back it (edge_crowd)
       coalesce(t.crowd_only, false) AS crowd_only, coalesce(t.crowd_trusted, false) AS crowd_trusted,
       trusted(t) AS trusted,  // the one trust predicate (cypher/__init__.py): plans use only these
       public(t) AS public,  // the shared memory's (else the reading tenant's own: a step's `layer`)
       // the reading tenant's own keys' counts ("TENANT/ successes failures": edge_crowd)
       [c IN coalesce(t.tenant_counts, []) WHERE $viewer <> '' AND c STARTS WITH $viewer + ' '] AS own_counts,
       // "from>to" concrete variants crawls and imports saw the action go between (graph/variants.py)
       coalesce(t.variants, []) AS variants
ORDER BY source, element_id, target, key
