// serve_edge: one UTG edge's counts, raw and contributor-weighted (tests and analysts).
MATCH (:Screen {id: $source})-[t:TRANSITION {key: $key}]->(:Screen)
RETURN t.observations AS observations, t.successes AS successes, t.failures AS failures,
       t.crowd_successes AS crowd_successes, t.crowd_failures AS crowd_failures,
       t.contributed_successes AS contributed_successes, t.contributed_failures AS contributed_failures,
       t.contributors AS contributors
