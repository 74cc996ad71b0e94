// version_clean_aliases: "" is no alias (the App of a foreign package that another app's trace
// reached); graphs written before recorded it as one when a device's version folded it.
MATCH (a:App)
WHERE '' IN coalesce(a.aliases, [])
SET a.aliases = [x IN a.aliases WHERE x <> '']
RETURN count(a) AS cleaned
