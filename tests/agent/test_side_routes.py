"""Routes through another app's screen and back (agent/appgraph.py, cypher/planner_side_transitions):
a device-crawled recording (DroidBot's acrylic) where saving asks the system for a permission; and the
way from one app into another (agent/crossapp.py)."""
from __future__ import annotations

from dataclasses import replace

import pytest

from appmem.agent.appgraph import AppGraph
from appmem.agent.compose import Composer
from appmem.agent.crossapp import best_path, switch_steps
from appmem.agent.screenwork import label
from appmem.agent.taskparse import parse_task
from appmem.formats.ui import Action, ActionType
from appmem.graph.model import Step, Trace
from appmem.graph.screens import screen_of
from appmem.ingest.droidbot import read_recording, recording_trace
from appmem.ingest.pipeline import ingest_trace
from tests.conftest import DROIDBOT

ACRYLIC, PERMISSIONS = "anupam.acrylic", "com.android.permissioncontroller"
CLOCK24 = "com.chancehorizon.just24hoursplus"


@pytest.fixture
def acrylic(empty_graph):
    ingest_trace(empty_graph, recording_trace(read_recording(DROIDBOT / ACRYLIC)), chunk_size=200)
    return AppGraph.load(empty_graph, [ACRYLIC])


def test_a_route_passes_a_system_permission_dialog_and_comes_back(acrylic):
    """The app's "Save" led to the system's permission dialog (another package), whose ALLOW led back into
    the app: the planner loads that way back with its control, so a route may pass the dialog; a step
    there names the dialog's package. Relaunches from other apps (start_app) are no such way back."""
    graph = acrylic
    (dialog,) = [s for s, row in graph.screens.items() if row["package"] == PERMISSIONS]
    (allow,) = graph.edges[dialog]
    assert allow.action == "tap" and label(graph.elements[allow.element_id]) == "ALLOW"
    assert graph.screens[allow.target]["package"] == ACRYLIC
    into = next(e for edges in graph.edges.values() for e in edges if e.target == dialog)
    route = graph.route(into.source, allow.target)
    assert route is not None and graph.route(dialog, allow.target) == [allow]
    foreign = {s for s, row in graph.screens.items() if row["package"] != ACRYLIC}
    assert all(e.action in ("tap", "back") for s in foreign for e in graph.edges.get(s, ()))
    composer = Composer(graph, parse_task("save the painting"))
    composer.hop(into)
    composer.hop(allow)
    assert [s.package for s in composer.steps] == ["", PERMISSIONS]
    assert composer.steps[1].element.locators and composer.steps[1].to_screen == allow.target


def test_going_to_another_app_does_not_act_in_the_app_in_front_to_reach_where_a_crawler_left_it(empty_graph):
    """A crawl tapped on in the painting app, then stopped it and found itself in the clock app's entry: a
    stored path from the painting screen into the clock. Getting into the clock from that screen launches it
    (a device can from anywhere); it does not tap the painting app's button first (a side effect there)."""
    painting = recording_trace(read_recording(DROIDBOT / ACRYLIC))
    clock = recording_trace(read_recording(DROIDBOT / CLOCK24))
    for trace in (painting, clock):
        ingest_trace(empty_graph, trace, chunk_size=200)
    tap = next(s for s in painting.steps if s.action.type is ActionType.TAP and s.source_state != s.target_state
               and painting.states[s.target_state].package == ACRYLIC)
    entry = next(s.target_state for s in clock.steps if s.action.type is ActionType.START_APP
                 and clock.states[s.target_state].package == CLOCK24)
    crawl = Trace(id="crawl-left-the-painting", source="explorer", package=ACRYLIC, app_version=painting.app_version,
                  device="twin-0001", explorer="frontier", started=painting.started, ended=painting.ended,
                  states={s: st for s, st in {**painting.states, **clock.states}.items()
                          if s in (tap.source_state, tap.target_state, entry)},
                  steps=[replace(tap, index=0), Step(1, tap.target_state, Action(ActionType.STOP_APP, text=ACRYLIC),
                                                     entry)])
    ingest_trace(empty_graph, crawl, chunk_size=200)
    source = screen_of(painting.states[tap.source_state], ACRYLIC, painting.app_version).id
    target = screen_of(clock.states[entry], CLOCK24, clock.app_version).id
    stored = best_path(empty_graph, source, target)
    assert stored is not None and [h["action"] for h in stored][-1] == "stop_app"
    steps = switch_steps(empty_graph, source, target)
    assert steps[0].action in (ActionType.HOME, ActionType.START_APP) and steps[0].element is None
    assert steps[-1].to_screen == target
