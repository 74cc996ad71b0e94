// check_duplicates: node and edge counts next to their distinct keys; any gap is a duplicate.
CALL () { MATCH (s:Screen) RETURN count(s) AS screens, count(DISTINCT s.id) AS distinct_screens }
CALL () { MATCH (e:Element) RETURN count(e) AS elements, count(DISTINCT e.id) AS distinct_elements }
CALL () { MATCH ()-[t:TRANSITION]->() RETURN count(t) AS transitions, count(DISTINCT t.key) AS distinct_transitions }
RETURN screens, distinct_screens, elements, distinct_elements, transitions, distinct_transitions
