// crowd_counts: what a purge must restore: screens (the tenant keys' titles in their layers), elements (their text variants and how often
// each was seen, the tenant keys' reports: Report nodes, or a graph not yet migrated's layer lists), edges (what tenant keys typed on them too) and their observations, element-to-element LEADS_TO edges and their
// observations, states, traces, tasks (and their run counts), votes and run outcomes (TaskRun),
// order-2 outcomes (Follow: pairs, what imports saw, contributors' voices), apps (one per package and
// version, foreign ones included).
CALL () { MATCH (a:App) RETURN count(a) AS apps }
CALL () { MATCH (s:Screen) RETURN count(s) AS screens,
                                    coalesce(sum(size(coalesce(s.layer_titles, []))), 0) AS titled_reports }
CALL () { MATCH (e:Element)
       RETURN count(e) AS elements, coalesce(sum(size(coalesce(e.texts, []))), 0) AS text_variants,
              coalesce(sum(reduce(n = 0, c IN coalesce(e.text_counts, []) | n + c)), 0) AS text_observations,
              coalesce(sum(size(coalesce(e.layer_keys, []))), 0) AS listed_reports }
CALL () { MATCH (x:Report) RETURN count(x) AS report_nodes }
CALL () { MATCH (:Element)-[l:LEADS_TO]->(:Element)
       RETURN count(l) AS leads_to, coalesce(sum(l.observations), 0) AS leads_to_observations }
CALL () { MATCH (:Screen)-[t:TRANSITION]->(:Screen)
       RETURN count(t) AS transitions, coalesce(sum(t.observations), 0) AS observations,
              coalesce(sum(t.successes), 0) AS successes, coalesce(sum(t.failures), 0) AS failures,
              coalesce(sum(size(coalesce(t.layer_inputs, []))), 0) AS typed_reports }
CALL () { MATCH (st:State) RETURN count(st) AS states }
CALL () { MATCH (tr:Trace) RETURN count(tr) AS traces }
CALL () { MATCH (k:Task) RETURN count(k) AS tasks, coalesce(sum(k.successes), 0) AS task_successes,
                                coalesce(sum(k.failures), 0) AS task_failures }
CALL () { MATCH (o:TaskRun) RETURN count(o) AS task_runs }
CALL () { MATCH (v:Vote) RETURN count(v) AS votes }
CALL () { MATCH (f:Follow) RETURN count(f) AS follows, coalesce(sum(f.observations), 0) AS follow_observations,
                                  coalesce(sum(size(f.crowd_keys)), 0) AS follow_voices }
RETURN apps, screens, titled_reports, elements, text_variants, text_observations,
       listed_reports + report_nodes AS element_reports, transitions, observations, successes, failures,
       typed_reports,
       leads_to, leads_to_observations, states, traces, tasks, task_successes,
       task_failures, task_runs, votes, follows, follow_observations, follow_voices
