// trusted_ids: of the screen, element and task ids a vector search found, those the graph holds and the
// trust predicate admits (cypher/__init__.py); an element with its screen. A search answers from these
// only: a point whose node is gone (a purge whose vector step failed) or one key's is never a hit.
CALL () {
  UNWIND $screen_ids AS id
  MATCH (s:Screen {id: id})
  WHERE trusted(s)
  RETURN collect(s.id) AS screens
}
CALL () {
  UNWIND $element_ids AS id
  MATCH (s:Screen)-[:HAS_ELEMENT]->(e:Element {id: id})
  WHERE trusted(e) AND trusted(s)
  RETURN collect(DISTINCT e.id) AS elements
}
CALL () {
  UNWIND $task_ids AS id
  MATCH (k:Task {id: id})
  WHERE trusted(k)
  RETURN collect(k.id) AS tasks
}
RETURN screens + elements + tasks AS ids
