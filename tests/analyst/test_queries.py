"""The analysts' saved queries (cypher/analyst_*.cypher) answer on the embedded graph with shared data."""
from __future__ import annotations

import dataclasses

import pytest

from appmem.graph.screens import screen_of
from appmem.ingest.droidbot import read_recording, recording_trace
from appmem.ingest.pipeline import ingest_trace
from tests.conftest import DROIDBOT
from tests.shared_data import ANALYST, uses

APP = "de.szalkowski.activitylauncher"


@pytest.fixture(scope="module")
@uses(ANALYST)
def memory(shared_graph):
    """Two apps from the shared recordings; one of them also run by devices that reported two versions:
    1.0, which saw the whole recording (the import under its sha256 alias folds into it), and 2.0, which
    saw only the first half (so screens differ between its versions)."""
    store = shared_graph.hold(ANALYST)
    traces = {name: recording_trace(read_recording(DROIDBOT / name)) for name in (APP, "anupam.acrylic")}
    full = traces[APP] = dataclasses.replace(traces[APP], id=traces[APP].id + "-v1", app_version="1.0")
    ingest_trace(store, full, chunk_size=200)
    half = full.steps[: len(full.steps) // 2]
    seen = {s.source_state for s in half} | {s.target_state for s in half}
    v2 = dataclasses.replace(full, id=full.id + "-v2", app_version="2.0", steps=half,
                             states={k: v for k, v in full.states.items() if k in seen})
    ingest_trace(store, v2, chunk_size=200)
    return {"store": store, "traces": traces, "v2": v2}


def own_screens(trace):
    return {screen_of(s, trace.package, trace.app_version).id for s in trace.states.values()
            if s.package == trace.package}


def test_apps_overview_lists_every_studied_version(memory):
    rows = memory["store"].read("analyst_apps_overview")
    by = {(r["package"], r["version"]): r for r in rows}
    v1 = memory["traces"][APP].app_version
    assert set(by) == {(APP, v1), (APP, "2.0"), ("anupam.acrylic", memory["traces"]["anupam.acrylic"].app_version)}
    assert by[(APP, v1)]["screens"] == len(own_screens(memory["traces"][APP]))
    assert by[(APP, v1)]["elements"] > 0 and by[(APP, v1)]["transitions"] > 0
    assert by[(APP, v1)]["traces"] == 2  # the alias import and the device's run of 1.0
    assert by[(APP, "2.0")]["screens"] < by[(APP, v1)]["screens"]


def test_frontier_names_screens_with_untried_elements(memory):
    rows = memory["store"].read("analyst_frontier", package=APP)
    assert rows and all(r["untried_elements"] > 0 and r["screen"] for r in rows)
    assert rows == sorted(rows, key=lambda r: (-r["untried_elements"], r["title"] or ""))


def test_cross_app_links_leave_the_package(memory):
    rows = memory["store"].read("analyst_cross_app", package=APP)
    assert rows and all(r["from_package"] != r["to_package"] for r in rows)
    assert any(r["to_package"] == APP for r in rows) and any(r["from_package"] == APP for r in rows)


def test_stale_edges_are_those_marked_stale(memory):
    store = memory["store"]
    assert store.read("analyst_stale_edges", package=APP) == []  # nothing marked yet
    with store.driver.session(database=store.database) as s:
        s.run("MATCH (:App {package: $p})-[:HAS_SCREEN]->(:Screen)-[t:TRANSITION]->() WITH t LIMIT 3 "
              "SET t.stale = true, t.versions = ['0.9']", p=APP).consume()
    try:
        rows = store.read("analyst_stale_edges", package=APP)
        assert len(rows) == 3 and all(r["versions"] == ["0.9"] for r in rows)
    finally:
        with store.driver.session(database=store.database) as s:
            s.run("MATCH ()-[t:TRANSITION]->() WHERE t.stale = true REMOVE t.stale, t.versions").consume()


def test_shortcuts_rank_the_most_observed_transitions(memory):
    rows = memory["store"].read("analyst_shortcuts", package=APP)
    assert 0 < len(rows) <= 25
    assert [r["observations"] for r in rows] == sorted((r["observations"] for r in rows), reverse=True)
    assert all(0 < r["reliability"] <= 1 for r in rows)


def test_version_diff_shows_the_screens_only_one_version_has(memory):
    v1 = memory["traces"][APP].app_version
    rows = memory["store"].read("analyst_version_diff", package=APP, old=v1, new="2.0")
    full = {screen_of(s, APP, v1).signature for s in memory["traces"][APP].states.values() if s.package == APP}
    half = {screen_of(s, APP, "2.0").signature for s in memory["v2"].states.values() if s.package == APP}
    assert {r["signature"] for r in rows if r["change"] == "removed"} == full - half
    assert not [r for r in rows if r["change"] == "added"]


def test_neighbourhood_and_path_between_two_screens(memory):
    store = memory["store"]
    screens = store.read("analyst_app_screens", package=APP)
    top = screens[0]["screen"]
    hood = store.read("analyst_neighbourhood", screen_id=top)
    far = [h["other"] for h in hood if h["direction"] == "out" and h["other"] != top]
    assert far
    path = store.read("analyst_path", source_id=top, target_id=far[0])
    assert [p["step"] for p in path] == [0]


def test_graph_views_return_paths(memory):
    store = memory["store"]
    drawn = store.read("analyst_app_graph", package=APP)
    assert drawn and all(r["p"] for r in drawn)
    top = store.read("analyst_app_screens", package=APP)[0]["screen"]
    hood = store.read("analyst_neighbourhood_graph", screen_id=top)
    assert len(hood) >= 2
    other = next(r["other"] for r in store.read("analyst_neighbourhood", screen_id=top)
                 if r["direction"] == "out" and r["other"] != top)
    assert len(store.read("analyst_path_graph", source_id=top, target_id=other)) == 1


def test_browser_guide_runs_every_saved_query_and_the_style_covers_the_model():
    import html
    import re

    from appmem.analyst.guide import GRASS, SLIDES, STATIC_GUIDE, render_guide
    from appmem import cypher
    from appmem.cypher.check import REPO  # not `cypher.check.REPO`: that worked only once another test imported it

    guide = render_guide()
    assert STATIC_GUIDE.read_text() == guide, "docker/browser/appmem.html is stale: re-render it"
    runnable = [html.unescape(m) for m in re.findall(r'class="[^"]*runnable">(.*?)</pre>', guide, re.S)]
    queries = [q for q in runnable if not q.startswith(":")]
    for name, _, _ in SLIDES:
        body = "\n".join(ln for ln in cypher.load(name).strip().splitlines() if not ln.startswith("//"))
        assert body in queries, name
    saved = {p.stem for p in (REPO / "cypher").glob("analyst_*.cypher")}
    assert saved == {name for name, _, _ in SLIDES}
    grass = GRASS.read_text()
    for kind in ("App", "Screen", "Element", "State", "Trace", "Task"):
        assert f"node.{kind} {{" in grass
    for rel in ("TRANSITION", "HAS_ELEMENT", "LEADS_TO", "STEP"):
        assert f"relationship.{rel} {{" in grass
