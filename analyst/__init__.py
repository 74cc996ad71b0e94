"""For analysts and operators: exports of the memory, the Neo4j Browser guide, and the app map page."""
