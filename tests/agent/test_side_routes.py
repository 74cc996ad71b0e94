"""Routes through another app's screen and back (agent/appgraph.py, cypher/planner_side_transitions):
a device-crawled recording (DroidBot's acrylic) where saving asks the system for a permission."""
from __future__ import annotations

import pytest

from agent.appgraph import AppGraph
from agent.compose import Composer
from agent.screenwork import label
from agent.taskparse import parse_task
from ingest.droidbot import read_recording, recording_trace
from ingest.pipeline import ingest_trace
from tests.conftest import DROIDBOT

ACRYLIC, PERMISSIONS = "anupam.acrylic", "com.android.permissioncontroller"


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
