// planner_layer_transitions: the edges whose reading differs for the reading tenant (graph/graphrows.py): of those
// leaving screens of $packages, and of the taps and backs into them from other apps' screens
// (planner_side_transitions), the ones its own keys reported (crowd_keys) or counted (tenant_counts): for it they
// may be trusted, and carry its own counts. Columns of planner_app_transitions, and the source's package.
MATCH (a:Screen)-[t:TRANSITION]->(b:Screen)
WHERE a.package IN $packages
  AND (any(k IN coalesce(t.crowd_keys, []) WHERE k STARTS WITH $viewer)
       OR any(c IN coalesce(t.tenant_counts, []) WHERE c STARTS WITH $viewer + ' '))
RETURN t.key AS key, a.id AS source, a.package AS source_package, b.id AS target, b.package AS target_package, coalesce(title(b), '') AS target_title,
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
UNION
MATCH (a:Screen)-[t:TRANSITION]->(b:Screen)
WHERE b.package IN $packages AND NOT a.package IN $packages AND t.action IN ["tap", "back"]
  AND (any(k IN coalesce(t.crowd_keys, []) WHERE k STARTS WITH $viewer)
       OR any(c IN coalesce(t.tenant_counts, []) WHERE c STARTS WITH $viewer + ' '))
RETURN t.key AS key, a.id AS source, a.package AS source_package, b.id AS target, b.package AS target_package, coalesce(title(b), '') AS target_title,
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
