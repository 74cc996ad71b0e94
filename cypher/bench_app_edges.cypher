// bench_app_edges: every UTG edge out of an app's screens, with what bench/merge.py reports
// after an update (versions seen in and staleness; null on graphs without them).
MATCH (s:Screen {package: $package})-[t:TRANSITION]->(b:Screen)
RETURN t.key AS key, s.id AS source, b.id AS target, t.action AS action, t.element_key AS element_key,
       t.detail AS detail, t.stale AS stale, t.versions AS versions
