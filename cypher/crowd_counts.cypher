// crowd_counts: what a purge must restore: screens, elements, edges and their observations,
// states, traces, tasks and votes.
CALL () { MATCH (s:Screen) RETURN count(s) AS screens }
CALL () { MATCH (e:Element) RETURN count(e) AS elements }
CALL () { MATCH (:Screen)-[t:TRANSITION]->(:Screen)
       RETURN count(t) AS transitions, coalesce(sum(t.observations), 0) AS observations,
              coalesce(sum(t.successes), 0) AS successes, coalesce(sum(t.failures), 0) AS failures }
CALL () { MATCH (st:State) RETURN count(st) AS states }
CALL () { MATCH (tr:Trace) RETURN count(tr) AS traces }
CALL () { MATCH (k:Task) RETURN count(k) AS tasks }
CALL () { MATCH (v:Vote) RETURN count(v) AS votes }
RETURN screens, elements, transitions, observations, successes, failures, states, traces, tasks, votes
