// migrate_times_find: times still stored as strings (graphs written before times became
// datetimes): per node or edge, its kind, key and the two time properties (b null if none).
// `x IS :: STRING` holds for null too (Cypher type predicates include null), hence `IS :: STRING NOT NULL`.
MATCH (s:Screen) WHERE s.first_seen IS :: STRING NOT NULL OR s.last_seen IS :: STRING NOT NULL
RETURN 'screen' AS kind, s.id AS id, s.first_seen AS a, s.last_seen AS b
UNION ALL
MATCH (s:State) WHERE s.observed_at IS :: STRING NOT NULL
RETURN 'state' AS kind, s.id AS id, s.observed_at AS a, null AS b
UNION ALL
MATCH (t:Trace) WHERE t.started IS :: STRING NOT NULL OR t.ended IS :: STRING NOT NULL
RETURN 'trace' AS kind, t.id AS id, t.started AS a, t.ended AS b
UNION ALL
MATCH ()-[t:TRANSITION]->() WHERE t.first_seen IS :: STRING NOT NULL OR t.last_seen IS :: STRING NOT NULL
RETURN 'transition' AS kind, t.key AS id, t.first_seen AS a, t.last_seen AS b
