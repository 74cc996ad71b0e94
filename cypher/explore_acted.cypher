// explore_acted: what the fleet did on a screen before a run started, for the frontier
// policy: each TRANSITION out of it first seen before $before (its action signature
// parts), where it led and how often it was observed. Within a run, workers coordinate
// through Redis.
MATCH (s:Screen {id: $screen_id})-[t:TRANSITION]->(b:Screen)
WHERE t.first_seen < datetime($before)
RETURN t.action AS action, t.element_key AS element_key, t.detail AS detail, t.observations AS observations,
       b.id AS target, t.successes AS successes
