"""What look-alike screens of other apps lend a planned app (agent/crowd.py), on two small apps ingested
into the real graph: the effect of a twin control one app's exploration never tapped."""
from __future__ import annotations

from dataclasses import replace

import pytest

from appmem.agent.appgraph import AppGraph
from appmem.agent.crowd import borrow_from_lookalikes, wanted_titles
from appmem.agent.planner import Planner
from appmem.agent.screenwork import label
from appmem.agent.taskparse import parse_task
from appmem.planconfig import DEFAULT
from appmem.formats.ui import Action, ActionType, Bounds, UIState, View
from appmem.graph.model import Step, Trace
from appmem.ingest.contributions import count_votes
from appmem.ingest.pipeline import ingest_trace
from appmem.semantic import ranking
from appmem.semantic.ranking import ElementIndex
from tests.shared_data import summarized

ONE, TWO = "org.example.one", "org.example.two"


def state(package: str, state_id: str, title: str, buttons: list[tuple[str, str]]) -> UIState:
    """A screen titled `title` (its first text) with buttons (resource-id name, text), top to bottom."""
    views = [View(0, -1, list(range(1, len(buttons) + 2)), "android.widget.FrameLayout", package,
                  bounds=Bounds(0, 0, 1080, 1920)),
             View(1, 0, [], "android.widget.TextView", package, text=title, bounds=Bounds(0, 0, 1080, 100))]
    views += [View(k + 2, 0, [], "android.widget.Button", package, resource_id=f"{package}:id/{rid}", text=text,
                   bounds=Bounds(0, 200 * (k + 1), 500, 200 * (k + 1) + 100), clickable=True)
              for k, (rid, text) in enumerate(buttons)]
    return UIState(package, ".Main", views, state_id=state_id, observed_at="2026-01-01T00:00:00Z")


def tap(package: str, rid: str) -> Action:
    return Action(ActionType.TAP, f"/FrameLayout[]#0/Button[{package}:id/{rid}]#0")


def app(package: str, print_title: str, tapped: str) -> Trace:
    """A print dialog and a file picker; the exploration reached the picker by tapping `tapped`."""
    printing = state(package, f"{package}-print", print_title, [("pdf", "Save to PDF"), ("all", "All printers")])
    picker = state(package, f"{package}-picker", "Downloads", [("save", "SAVE"), ("folder", "New folder")])
    return Trace(f"crowd-{package}", "explorer", package, "1", "dev", "test", "2026-01-01T00:00:00Z", "",
                 states={printing.state_id: printing, picker.state_id: picker},
                 steps=[Step(0, printing.state_id, tap(package, tapped), picker.state_id),
                        Step(1, picker.state_id, Action(ActionType.BACK), printing.state_id)])


@pytest.fixture
def apps(empty_graph):
    """App two's exploration tapped "Save to PDF"; app one's reached the same picker by "All printers"."""
    ingest_trace(empty_graph, app(TWO, "Print", "pdf"), chunk_size=10)
    ingest_trace(empty_graph, app(ONE, "Print", "all"), chunk_size=10)
    return empty_graph


def test_a_twin_on_a_look_alike_screen_of_another_app_lends_its_effect(apps):
    import appmem.agent.compose as compose

    graph = borrow_from_lookalikes(apps, AppGraph.load(apps, [ONE]))
    pdf = next(e for e in graph.elements.values() if label(e) == "Save to PDF")
    picker = next(s for s, row in graph.screens.items() if row["title"] == "Downloads" and row["package"] == ONE)
    assert graph.opens(pdf) is None and graph.lent_opens == {pdf.id: picker}
    assert graph.lent == {}  # the picker shows its own SAVE: nothing to lend
    composer = compose.Composer(graph, parse_task("print it to a pdf"))
    composer.finish(pdf)
    assert [label(s.element) for s in composer.steps] == ["Save to PDF", "SAVE"]
    assert composer.steps[0].to_screen == picker
    composer = compose.Composer(graph, parse_task("print it to a pdf"), replace(DEFAULT, crowd_twins=False))
    composer.finish(pdf)
    assert [label(s.element) for s in composer.steps] == ["Save to PDF"]


def test_a_title_many_apps_share_reads_as_many_of_their_screens_as_the_planned_app_has(apps):
    """Three more apps show a "Print" screen: app one has one screen titled so, and one other app's is read
    (of those showing as many controls, the first by package name: org.example.a), whatever the number of apps
    that show one."""
    for other in ("org.example.c", "org.example.b", "org.example.a"):
        ingest_trace(apps, app(other, "Print", "pdf"), chunk_size=10)
    assert wanted_titles(["Print", "Downloads", "", "Print"]) == [{"title": "Downloads", "limit": 1},
                                                                  {"title": "Print", "limit": 2}]
    rows = apps.read("planner_crowd_screens", titles=wanted_titles(["Print", "Downloads"]), packages=[ONE])
    assert {(r["title"], r["package"]) for r in rows} == {("Print", "org.example.a"), ("Downloads", "org.example.a")}
    graph = borrow_from_lookalikes(apps, AppGraph.load(apps, [ONE]))
    pdf = next(e for e in graph.elements.values() if label(e) == "Save to PDF")
    assert list(graph.lent_opens) == [pdf.id]  # what the one read lends: "Save to PDF" opens one's picker


def test_a_lent_effect_is_the_elements_effect_in_the_index(apps, settings):
    """In the planner's element index of app one, "Save to PDF" (never tapped there) leads where its twin in app
    two led: one's picker, so the picker's SAVE ranks right before it (stage 3 of the one element scorer) as
    it would had one's exploration tapped it; in one's own points it leads nowhere."""
    with summarized(apps, settings, [ONE, TWO]) as (vectors, embedder):
        planner = Planner(apps, vectors, embedder)
        (pdf, picker), = planner.graph([ONE]).lent_opens.items()
        index = planner.index([ONE])
        first = {p["element_id"]: p for p in index.payloads}
        assert first[pdf]["leads_to"] == [picker]
        assert not next(p for p in ElementIndex.load(vectors, [ONE]).payloads if p["element_id"] == pdf)["leads_to"]
        save = next(i for i, p in first.items() if p["screen_id"] == picker and p["label"] == "SAVE")
        task = first[pdf]["simulated_task"]
        scores = {h.payload["element_id"]: h.score for h in index.search(embedder.query(task), task, len(index))}
        assert scores[save] == pytest.approx(scores[pdf] + ranking.FOLLOW_GAP, abs=1e-5)


def test_screens_titled_otherwise_lend_nothing(empty_graph):
    """The same controls under another title are another screen: no effect is lent."""
    ingest_trace(empty_graph, app(TWO, "Print", "pdf"), chunk_size=10)
    ingest_trace(empty_graph, app(ONE, "Export", "all"), chunk_size=10)
    graph = borrow_from_lookalikes(empty_graph, AppGraph.load(empty_graph, [ONE]))
    assert graph.lent_opens == {} and graph.lent == {}


def bare_picker(store) -> None:
    """App two as `app`; app one's picker never showed SAVE (its state had only "New folder" and "Cancel")."""
    ingest_trace(store, app(TWO, "Print", "pdf"), chunk_size=10)
    printing = state(ONE, "one-print", "Print", [("pdf", "Save to PDF"), ("all", "All printers")])
    picker = state(ONE, "one-picker", "Downloads", [("folder", "New folder"), ("cancel", "Cancel")])
    ingest_trace(store, Trace("crowd-one-bare", "explorer", ONE, "1", "dev", "test", "2026-01-01T00:00:00Z", "",
                              states={"one-print": printing, "one-picker": picker},
                              steps=[Step(0, "one-print", tap(ONE, "all"), "one-picker")]), chunk_size=10)


def test_a_look_alike_lends_the_confirm_a_screen_lacks(empty_graph):
    """App one's picker never showed SAVE; app two's look-alike did: SAVE is lent to one's picker with one's
    package in its resource id and locators."""
    bare_picker(empty_graph)
    graph = borrow_from_lookalikes(empty_graph, AppGraph.load(empty_graph, [ONE]))
    (screen, lent), = graph.lent.items()
    assert graph.screens[screen]["title"] == "Downloads" and [label(e) for e in lent] == ["SAVE"]
    assert lent[0].resource_id == f"{ONE}:id/save" and lent[0].screen_id == screen
    assert lent[0].locators and all(TWO not in x and x.startswith("//") for x in lent[0].locators)


def test_a_lent_confirm_joins_the_planned_apps_element_index(empty_graph, settings):
    """The planner's element index of app one holds the SAVE lent to its picker: the rows of app two's SAVE
    (their vectors and texts), keyed to one's picker, with no effect of their own; app one's own points lack
    it. Asked what that SAVE does, the one element scorer ranks the lent copy first."""
    bare_picker(empty_graph)
    with summarized(empty_graph, settings, [ONE, TWO]) as (vectors, embedder):
        planner = Planner(empty_graph, vectors, embedder)
        graph = planner.graph([ONE])
        (screen, (lent,)), = graph.lent.items()
        assert graph.lent_from[lent.id][0] == TWO
        index = planner.index([ONE])
        rows = [p for p in index.payloads if p["element_id"] == lent.id]
        theirs = [p for _, p in vectors.points("elements", [TWO])
                  if p["element_id"] == graph.lent_from[lent.id][1] and not p.get("part")]
        assert rows and sorted(p["text"] for p in rows) == sorted(p["text"] for p in theirs)
        assert all(p["package"] == ONE and p["screen_id"] == screen and p["screen_title"] == "Downloads"
                   and p["leads_to"] == [] and p["lent_from"] == TWO for p in rows)
        assert lent.id not in {p["element_id"] for p in ElementIndex.load(vectors, [ONE]).payloads}
        task = rows[0]["simulated_task"]
        assert index.search(embedder.query(task), task, 1)[0].payload["element_id"] == lent.id


def test_a_tap_only_contributions_report_lends_no_effect_until_a_quorum_backs_it(empty_graph):
    """App two's exploration never tapped "Save to PDF"; one key's run traces claim it opens the picker.
    That claim is no evidence for app one's plans until QUORUM distinct contributors back it."""
    ingest_trace(empty_graph, app(TWO, "Print", "all"), chunk_size=10, quorum=3)
    ingest_trace(empty_graph, app(ONE, "Print", "all"), chunk_size=10, quorum=3)

    def contribute(key: str) -> None:
        run = app(TWO, "Print", "pdf")
        trace = Trace(f"run-{key}-{len(keys)}", "agent", TWO, "1", "dev", "agent", "2026-01-02T00:00:00Z", "",
                      run.states, run.steps[:1], contributor=key)
        keys.append(key)
        ingest_trace(empty_graph, trace, chunk_size=10, quorum=3)
        count_votes(empty_graph, trace, key, quorum=3)  # as the ingest worker does (ingest/contributions.py)

    keys: list[str] = []

    contribute("k0")
    contribute("k0")
    assert borrow_from_lookalikes(empty_graph, AppGraph.load(empty_graph, [ONE])).lent_opens == {}
    contribute("k1")
    contribute("k2")
    graph = borrow_from_lookalikes(empty_graph, AppGraph.load(empty_graph, [ONE]))
    (pdf, picker), = graph.lent_opens.items()
    assert label(graph.elements[pdf]) == "Save to PDF" and graph.screens[picker]["title"] == "Downloads"
