"""A route through a state change is a last resort, and a quiet route the memory shows rarely landing is no way
round. A small synthetic notes app (AutoDroid memory written here, ingested and summarised on the real stack):
ticking "Compact mode" always opened the compact list, where "Export all" is; "Open list" opened the normal
list four times in five and the compact list once (after the mode was on: memory cannot tell the two
settings pages apart by the mode). The quiet route to "Export all" lands about one time in five, the route
through the toggle nearly always: the plan takes the toggle, and says it is a move on the route. Where the
quiet route lands about as surely, it is kept (tests/agent/test_exact_plans.py)."""
from __future__ import annotations

import math

import pytest

from appmem.agent.planjson import agent_plan
from appmem.agent.screenwork import label, role
from tests.agent.conftest import explored_planner

NOTES = "org.example.compact"
BACK = "<button id=9>go back</button>"
MAIN = "<button id=0>Settings</button>\n<p id=1>Welcome</p>"
SETTINGS = f"<checkbox id=0 checked=False>Compact mode</checkbox>\n<button id=1>Open list</button>\n{BACK}"
NORMAL = f"<p id=0>All notes</p>\n<p id=1>Shopping</p>\n<p id=2>Holidays</p>\n{BACK}"
COMPACT = f"<p id=0>Compact list</p>\n<button id=1>Export all</button>\n{BACK}"
EXPORTED = "<p id=0>Notes exported</p>"

# (state, element chosen, text typed): each record's action leads to the next record's state
EXPLORATION = [
    (MAIN, 0, None),
    (SETTINGS, 0, None), (COMPACT, 9, None), (SETTINGS, 0, None), (COMPACT, 9, None),
    (SETTINGS, 0, None), (COMPACT, 9, None),
    (SETTINGS, 1, None), (NORMAL, 9, None), (SETTINGS, 1, None), (NORMAL, 9, None),
    (SETTINGS, 1, None), (NORMAL, 9, None), (SETTINGS, 1, None), (NORMAL, 9, None),
    (SETTINGS, 1, None), (COMPACT, 1, None), (EXPORTED, -1, None),
]


@pytest.fixture(scope="module")
def planner(store, settings, tmp_path_factory):
    with explored_planner(store, settings, tmp_path_factory.mktemp("compact"), NOTES, EXPLORATION) as planner:
        yield planner


def edge_of(graph, name: str):
    """The recorded tap on the control labelled `name` that leads to the screen showing "Export all"."""
    export = next(e for e in graph.elements.values() if label(e) == "Export all")
    return next(e for edges in graph.edges.values() for e in edges
                if e.element_id and label(graph.elements[e.element_id]) == name and e.target == export.screen_id)


def test_a_quiet_route_that_rarely_lands_gives_way_to_the_route_through_a_toggle(planner):
    graph = planner.graph([NOTES])
    toggle, quiet = edge_of(graph, "Compact mode"), edge_of(graph, "Open list")
    # what the memory shows: the quiet hop lands far less surely than the toggle, by more than e
    assert math.log(toggle.landing / quiet.landing) > planner.config.change_odds
    assert [label(graph.elements[e.element_id]) for e in graph.quiet.route(quiet.source, quiet.target)] == ["Open list"]
    plan = agent_plan(planner.plan("export all notes", [NOTES])).model_dump()["steps"]
    got = [(s["action"], (s["element"] or {}).get("label", ""), s["why"]) for s in plan]
    assert got == [("tap", "Settings", "route"), ("tap", "Compact mode", "route"), ("tap", "Export all", "target")], got
    assert role(graph.elements[toggle.element_id]) == "toggle"


def test_a_plans_quiet_routes_leave_out_the_steps_its_run_says_failed(planner):
    """The quiet routes of a plan request (AppGraph.quiet) are searched on its own graph: without the steps the
    agent's run says failed, even after another request searched the loaded graph's."""
    graph = planner.graph([NOTES])
    quiet = edge_of(graph, "Open list")
    assert graph.quiet.route(quiet.source, quiet.target) == [quiet]  # searched, and kept, on the loaded graph
    failed = {"screen_id": quiet.source, "action": "tap", "element_id": quiet.element_id, "detail": ""}
    assert graph.coming(None, quiet.source, avoid=[failed]).quiet.route(quiet.source, quiet.target) is None
    assert graph.quiet.route(quiet.source, quiet.target) == [quiet]  # the loaded graph is left as it was
