"""One memory across devices, profiles and versions: times, outcomes, screen identity, updates."""
from __future__ import annotations

from datetime import datetime, timezone

from graph.migrate import migrate
from graph.times import utc_iso
from ingest.droidbot import read_recording, recording_trace
from ingest.pipeline import ingest_trace
from tests.conftest import DROIDBOT


def cypher_rows(store, query, **params):
    with store.driver.session(database=store.database) as session:
        return [r.data() for r in session.run(query, params)]


def test_every_time_format_becomes_one_utc_form():
    assert utc_iso("2023-10-19_025206") == "2023-10-19T02:52:06Z"
    assert utc_iso("2023-10-19 02:52:06") == "2023-10-19T02:52:06Z"
    assert utc_iso("2023-10-19T04:52:06+02:00") == "2023-10-19T02:52:06Z"
    assert utc_iso(datetime(2023, 10, 19, 2, 52, 6, tzinfo=timezone.utc)) == "2023-10-19T02:52:06Z"
    assert utc_iso("") == ""


def test_imported_times_are_datetimes_and_old_graphs_migrate(empty_graph):
    folder = DROIDBOT / "ru.ikkui.achie"
    ingest_trace(empty_graph, recording_trace(read_recording(folder)), chunk_size=100)
    row = cypher_rows(empty_graph, "MATCH (s:Screen)-[t:TRANSITION]->() RETURN s.first_seen AS a, "
                                   "t.last_seen AS b, t.first_seen <= t.last_seen AS ordered LIMIT 1")[0]
    assert row["a"].tzinfo is not None and row["b"].tzinfo is not None and row["ordered"]
    # A graph written before: string times of every format, one already a datetime.
    cypher_rows(empty_graph, "CREATE (:Trace {id: 'old', started: '2023-10-19 02:52:06', ended: '2023-10-19_030000'}) "
                             "CREATE (:State {id: 'old-state', observed_at: '2023-10-19_025206'})")
    report = migrate(empty_graph)
    assert report["times"] == {"trace": 1, "state": 1}
    old = cypher_rows(empty_graph, "MATCH (t:Trace {id: 'old'}), (s:State {id: 'old-state'}) "
                                   "RETURN t.started < t.ended AS ordered, s.observed_at = t.started AS same")[0]
    assert old == {"ordered": True, "same": True}
    assert migrate(empty_graph)["times"] == {}
