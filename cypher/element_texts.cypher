// element_texts: every element text of an app's screens (checks that texts round-trip).
MATCH (s:Screen {package: $package})-[:HAS_ELEMENT]->(e:Element)
RETURN e.id AS id, e.text AS text, e.content_desc AS content_desc
