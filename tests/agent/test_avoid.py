"""A plan request's `avoid`: steps that failed from their screens in the agent's run. Routes leave them out
(agent/appgraph.py `coming`); the runtime names a step there once it failed twice from a screen
(runtime/failed_steps.py). A small app ingested into the real graph, and the failed steps' own bookkeeping."""
from __future__ import annotations

from appmem.agent.appgraph import AppGraph
from appmem.formats.ui import Action, ActionType, Bounds, UIState, View
from appmem.graph.model import Step, Trace
from appmem.ingest.pipeline import ingest_trace
from appmem.runtime.move import Move
from appmem.runtime.screen import LiveScreen
from appmem.runtime.failed_steps import FailedSteps

APP = "org.example.avoid"


def screen(state_id: str, texts: list[str]) -> UIState:
    views = [View(0, -1, list(range(1, len(texts) + 1)), "android.widget.FrameLayout", APP,
                  bounds=Bounds(0, 0, 1080, 1920))]
    views += [View(k + 1, 0, [], "android.widget.Button", APP, resource_id=f"{APP}:id/{state_id}{k}", text=text,
                   bounds=Bounds(0, 200 * k, 500, 200 * k + 100), clickable=True) for k, text in enumerate(texts)]
    return UIState(APP, ".Main", views, state_id=state_id, observed_at="2026-01-01T00:00:00Z")


def tap(state_id: str, k: int) -> Action:
    return Action(ActionType.TAP, f"/FrameLayout[]#0/Button[{APP}:id/{state_id}{k}]#0")


def test_routes_leave_out_the_steps_the_run_says_failed(empty_graph):
    # home → Settings directly, or home → More → Settings
    states = {"home": screen("home", ["Settings", "More"]), "more": screen("more", ["Go to settings"]),
              "settings": screen("settings", ["Language"])}
    steps = [Step(0, "home", tap("home", 0), "settings"), Step(1, "settings", Action(ActionType.BACK), "home"),
             Step(2, "home", tap("home", 1), "more"), Step(3, "more", tap("more", 0), "settings")]
    ingest_trace(empty_graph, Trace("avoid", "explorer", APP, "1", "dev", "test", "2026-01-01T00:00:00Z", "",
                                    states=states, steps=steps), chunk_size=10)
    graph = AppGraph.load(empty_graph, [APP])
    direct = next(e for edges in graph.edges.values() for e in edges
                  if e.element_id and graph.elements[e.element_id].text == "Settings")
    home, settings = direct.source, direct.target
    assert [e.key for e in graph.route(home, settings)] == [direct.key]
    failed = {"screen_id": home, "action": "tap", "element_id": direct.element_id, "detail": ""}
    around = graph.coming(None, home, avoid=[failed])
    assert [graph.screens[e.target]["title"] for e in around.route(home, settings)] == ["Go to settings", "Language"]
    assert graph.route(home, settings)[0].key == direct.key  # the loaded graph is left as it was
    assert graph.coming(None, home, avoid=[{**failed, "element_id": "not-an-element"}]) is graph


def test_a_step_is_named_for_memory_to_avoid_once_it_failed_twice_as_memory_planned_it():
    setbacks = FailedSteps()
    # the device's screen was located as a look-alike of the one the plan was made on: the plan's edge is named
    here = LiveScreen(APP, ".Main", "<hierarchy/>", {"screen_id": "device-screen"})
    step = Move("tap", {"id": "e1", "label": "Settings"}, screen_id="plan-screen")
    back = Move("back", screen_id="plan-screen")
    record = {"acted": False}
    setbacks.fail(here, step, record)
    setbacks.fail(here, back, record)
    assert setbacks.avoided(2) == []
    setbacks.fail(here, step, record)
    assert setbacks.avoided(2) == [{"screen_id": "plan-screen", "action": "tap", "element_id": "e1"}]
    assert setbacks.avoided(1)[-1] == {"screen_id": "plan-screen", "action": "back", "element_id": ""}
