// explore_acted: what the fleet already did on a screen, for the frontier policy:
// each TRANSITION out of it (its action signature parts), where it led, how often.
MATCH (s:Screen {id: $screen_id})-[t:TRANSITION]->(d:Screen)
RETURN t.action AS action, t.element_key AS element_key, t.detail AS detail, d.id AS target,
       t.observations AS observations
