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


def tiny_state(state_id, rid, package="org.example.app", activity=".Main", text="Go"):
    from graph.model import Bounds, UIState, View
    views = [View(0, -1, [1], "android.widget.FrameLayout", package, bounds=Bounds(0, 0, 1080, 1920)),
             View(1, 0, [], "android.widget.Button", package, resource_id=rid, text=text,
                  bounds=Bounds(0, 0, 500, 200), clickable=True)]
    return UIState(package, activity, views, state_id=state_id, observed_at="2026-01-01T00:00:00Z")


def test_outcomes_count_as_failures_on_the_expected_edge(empty_graph):
    from graph.model import Action, ActionType, Outcome, Step, Trace, reliability
    from graph.rows import build_rows
    from graph.screens import screen_of

    a = tiny_state("a", "org.example.app:id/go")
    b = tiny_state("b", "org.example.app:id/next", activity=".Next")
    crash = tiny_state("c", "android:id/aerr_close", package="android", activity=".AppErrorDialog", text="Close app")
    key = "/FrameLayout[]#0/Button[org.example.app:id/go]#0"
    tap = Action(ActionType.TAP, key)
    b_screen = screen_of(b, "org.example.app", "1").id
    trace = Trace("outcomes", "explorer", "org.example.app", "1", "dev", "test", "2026-01-01T00:00:00Z", "",
                  states={"a": a, "b": b, "c": crash},
                  steps=[Step(0, "a", tap, "b"), Step(1, "b", Action(ActionType.BACK), "a"),
                         Step(2, "a", tap, "a", Outcome.NO_EFFECT, expected_screen=b_screen),
                         Step(3, "a", tap, "c")])
    ingest_trace(empty_graph, trace, chunk_size=10)
    edges = {(r["target"], r["action"]): r for r in cypher_rows(
        empty_graph, "MATCH (:Screen)-[t:TRANSITION]->(b:Screen) RETURN b.id AS target, t.action AS action, "
                     "t.successes AS s, t.failures AS f, t.observations AS n")}
    to_b = edges[(b_screen, "tap")]
    assert (to_b["s"], to_b["f"], to_b["n"]) == (1, 1, 2)
    to_crash = edges[(screen_of(crash, "org.example.app", "1").id, "tap")]
    assert (to_crash["s"], to_crash["f"]) == (0, 1)
    assert not any(k[0] == screen_of(a, "org.example.app", "1").id and k[1] == "tap" for k in edges)
    assert reliability(1, 1) == 0.5 and reliability(0, 0) == 0.5 and reliability(3, 0) == 0.8
    assert build_rows(trace, trace.steps, list(trace.states.values())).leads_to  # the ok move still feeds the ETG
