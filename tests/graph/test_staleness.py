"""refresh_stale (cypher/refresh_stale.cypher): which edges of an app are stale, read from that app's
own screens only, so that writers of other apps at the same time cannot fail it (the crawl flake)."""
from __future__ import annotations

import threading

from appmem import cypher


def cypher_rows(store, query, **params):
    with store.driver.session(database=store.database) as session:
        return [r.data() for r in session.run(query, params)]


def stale_flags(store) -> dict[str, bool | None]:
    return {r["key"]: r["stale"] for r in cypher_rows(store, "MATCH ()-[t:TRANSITION]->() RETURN t.key AS key, "
                                                             "t.stale AS stale")}


def test_edges_into_and_out_of_the_app_are_judged_and_other_apps_edges_are_left_alone(empty_graph):
    cypher_rows(empty_graph, """
        CREATE (v1:App {id: 'a1', package: 'A', version: '1', version_code: 1})<-[:OF_APP]-(:Trace {id: 't1'}),
               (v2:App {id: 'a2', package: 'A', version: '2', version_code: 2})<-[:OF_APP]-(:Trace {id: 't2'}),
               (x:Screen {id: 'x', package: 'A'}), (y:Screen {id: 'y', package: 'A'}),
               (p:Screen {id: 'p', package: 'B'}), (q:Screen {id: 'q', package: 'B'}),
               (x)-[:TRANSITION {key: 'x-y gone', versions: ['1']}]->(y),
               (x)-[:TRANSITION {key: 'x-y kept', versions: ['1', '2']}]->(y),
               (p)-[:TRANSITION {key: 'p-x gone', versions: ['1']}]->(x),
               (y)-[:TRANSITION {key: 'y-p kept', versions: ['2']}]->(p),
               (x)-[:TRANSITION {key: 'x-x gone', versions: ['1']}]->(x),
               (p)-[:TRANSITION {key: 'p-q other app', versions: ['1']}]->(q)""")
    first = empty_graph.write("refresh_stale", package="A")
    assert first == [{"newest": "2", "changed": 5, "stale": 3}]
    assert stale_flags(empty_graph) == {"x-y gone": True, "x-y kept": False, "p-x gone": True, "y-p kept": False,
                                        "x-x gone": True, "p-q other app": None}
    assert empty_graph.write("refresh_stale", package="A") == []  # nothing changed: nothing written


def test_writers_of_different_apps_refresh_their_staleness_at_once(empty_graph):
    """Each writer's transaction adds edges to its app and refreshes its staleness, as a crawl's
    chunk does, while three other apps do the same. The statement used to scan every screen and
    failed now and then (EntityNotFound on a screen another app's writer had not committed)."""
    packages, rounds, failures = [f"app{i}" for i in range(4)], 40, []

    def writer(package: str) -> None:
        def work(tx):
            tx.run("MERGE (a:App {id: $p}) SET a.package = $p, a.version = '1', a.version_code = 1 "
                   "MERGE (tr:Trace {id: $p}) MERGE (tr)-[:OF_APP]->(a)", p=package).consume()
            tx.run("UNWIND range(0, 9) AS i MERGE (s:Screen {id: $p + $r + i}) SET s.package = $p "
                   "MERGE (b:Screen {id: $p + $r + (i + 1)}) SET b.package = $p "
                   "MERGE (s)-[t:TRANSITION {key: $p + $r + i}]->(b) SET t.versions = ['1']",
                   p=package, r=f"-{round_}-").consume()
            tx.run(cypher.load("refresh_stale"), package=package).consume()

        try:
            with empty_graph.driver.session(database=empty_graph.database) as session:
                for round_ in range(rounds):
                    session.execute_write(work)
        except Exception as exc:  # noqa: BLE001 - reported below, whatever it is
            failures.append(f"{package}: {exc!r}")

    threads = [threading.Thread(target=writer, args=(p,)) for p in packages]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    flags = stale_flags(empty_graph)
    assert len(flags) == len(packages) * rounds * 10 and set(flags.values()) == {False}
