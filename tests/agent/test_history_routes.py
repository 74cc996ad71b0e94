"""Routes that know where an ambiguous action lands, on a real recording (activitylauncher: its "navigate up"
and BACK land where the app came from) ingested into the real graph: order-2 outcomes are stored once per
trace, and a route from a screen reached by a known edge takes the hop that history says lands."""
from __future__ import annotations

import pytest

from appmem.agent.appgraph import AppGraph
from appmem.ingest.droidbot import read_recording, recording_trace
from appmem.ingest.pipeline import ingest_trace
from tests.conftest import DROIDBOT
from tests.shared_data import CHUNK, LAUNCHER_RECORDING, uses

LAUNCHER = "de.szalkowski.activitylauncher"


@pytest.fixture(scope="module")
@uses(LAUNCHER_RECORDING)
def launcher(shared_graph):
    return shared_graph.hold(LAUNCHER_RECORDING)


def follows(store) -> dict[str, int]:
    return {f"{r['prev']} {r['next']}": r["observations"]
            for r in store.read("planner_app_follows", packages=[LAUNCHER])}


def test_order_2_outcomes_come_from_the_recorded_event_order_and_a_re_import_counts_nothing(launcher):
    before = follows(launcher)
    trace = recording_trace(read_recording(DROIDBOT / LAUNCHER))
    # every event after the one before it, in the order DroidBot sent them (events/), not the UTG's order
    assert sum(before.values()) > len(trace.steps)
    assert ingest_trace(launcher, trace, chunk_size=CHUNK).already_present
    assert follows(launcher) == before


def test_from_a_screen_reached_by_a_known_edge_the_route_takes_the_hop_history_says_lands(launcher):
    graph = AppGraph.load(launcher, [LAUNCHER])
    routes = graph.routes
    by_key = {e.key: e for edges in graph.edges.values() for e in edges}
    flipped = []
    for came_by, after in routes.follows.after.items():
        for key in after:
            edge = by_key.get(key)
            if edge is None or came_by not in by_key:  # a no-op moves nowhere: no route takes it
                continue
            outcomes = [e for e in graph.edges[edge.source] if e.group == edge.group]
            if len(outcomes) < 2 or any(k != key and routes.follows.groups.get(k) == edge.group for k in after):
                continue  # an action with one outcome, or one that history does not settle
            with_history = routes.route(edge.source, edge.target, came_by)
            if with_history[:1] == [edge] and routes.route(edge.source, edge.target)[:1] != [edge]:
                flipped.append((came_by, edge))
    # the recording has actions whose outcome history settles, and that changes where routes go from there
    assert flipped
    # and the graph a plan request gets when it says where the agent came from routes the same way
    came_by, edge = flipped[0]
    before = by_key[came_by]
    coming = graph.coming({"screen_id": before.source, "action": before.action, "element_id": before.element_id,
                           "detail": before.detail}, edge.source)
    assert coming.route(edge.source, edge.target)[:1] == [edge]
    assert graph.route(edge.source, edge.target)[:1] != [edge]  # the shared graph is left as it was
