"""What a loaded graph keeps between plans changes no plan, on the heaviest shared recording (activitylauncher,
974 elements): the route search's hop costs kept per (screen, edge came by) route as a search costing every
hop anew does, also in routes that leave some actions out (which keep the full routes' costs); and a planner
that served many plans (its routes searched, screens and elements read) answers each task as a planner that
plans it first, from the app's entry and from where an agent came, with steps it avoids."""
from __future__ import annotations

import heapq
import math

import pytest

from appmem.agent.appgraph import AppGraph
from appmem.agent.planjson import agent_plan
from appmem.agent.planner import Planner, PlanningError
from appmem.graph.routes import Routes
from appmem.semantic.snapshots import SnapshotVectors
from tests.shared_data import LAUNCHER_RECORDING, summarized, uses

LAUNCHER = "de.szalkowski.activitylauncher"
TASKS = 12


@pytest.fixture(scope="module")
@uses(LAUNCHER_RECORDING)
def memory(shared_graph, settings):
    store = shared_graph.hold(LAUNCHER_RECORDING)
    with summarized(store, settings, [LAUNCHER]) as (_, embedder):
        yield store, SnapshotVectors(settings.snapshot_path, embedder.dim), embedder  # what a serve worker reads


def searched_anew(routes: Routes, start: str) -> dict[str, float]:
    """Screen → the cheapest cost from `start`: Dijkstra over (screen, edge came by) states, each hop costed
    when it is relaxed (Routes._step: the cost's one definition), nothing kept between searches."""
    first = routes._state(start, "", "")
    dist, best, queue = {first: 0.0}, {}, [(0.0, first)]
    while queue:
        d, state = heapq.heappop(queue)
        if d > dist.get(state, math.inf):
            continue
        best.setdefault(state[0], d)
        for edge in routes.edges.get(state[0], ()):
            cost, nxt = routes._step(state, edge)
            if d + cost < dist.get(nxt, math.inf) - 1e-12:
                dist[nxt] = d + cost
                heapq.heappush(queue, (d + cost, nxt))
    del best[start]
    return best


def test_kept_hop_costs_route_as_costing_each_hop_anew(memory):
    store, _, _ = memory
    routes = AppGraph.load(store, [LAUNCHER]).routes
    starts = sorted(routes.edges)
    assert len(starts) > 50 and routes.follows.after  # a heavy app, whose routes weigh the edge they came by
    for start in starts:  # every search after the first reuses the hop costs the ones before kept
        expected = searched_anew(routes, start)
        assert {t: routes.cost(start, t) for t in expected} == expected
        assert {t: walked(routes, start, routes.route(start, t)) for t in expected} == expected


def test_routes_without_some_actions_keep_their_hop_costs_and_route_as_routes_built_without_them(memory):
    store, _, _ = memory
    routes = AppGraph.load(store, [LAUNCHER]).routes
    edges = [e for out in routes.edges.values() for e in out]
    avoided = frozenset(e.group for e in edges[::9])
    for start in sorted(routes.edges)[::3]:  # hop costs kept by the full routes first
        routes.cost(start, start)
        routes.reached(start)
    derived = routes.without(avoided)
    built = Routes.of((e for e in edges if e.group not in avoided), routes.follows, routes.variants)
    assert sum(len(out) for out in derived.edges.values()) < len(edges)
    for start in sorted(routes.edges):
        expected = searched_anew(built, start)
        assert {t: derived.cost(start, t) for t in expected} == expected
        assert {t: derived.route(start, t) for t in expected} == {t: built.route(start, t) for t in expected}


def walked(routes: Routes, start: str, hops) -> float:
    """The cost of taking `hops` from `start`, each costed from the state the ones before led to."""
    state, total = routes._state(start, "", ""), 0.0
    for edge in hops:
        cost, state = routes._step(state, edge)
        total += cost
    return total


def plan_json(planner: Planner, task: str, start: str | None = None, came: dict | None = None) -> dict:
    try:
        plan = planner.plan(task, [LAUNCHER], start=start, came_from=came, avoid=[came] if came else None)
    except PlanningError as exc:
        return {"error": str(exc)}
    return agent_plan(plan).model_dump(mode="json")


def test_a_planner_that_served_many_plans_answers_each_as_a_fresh_one(memory):
    store, vectors, embedder = memory
    served = Planner(store, vectors, embedder)
    graph = served.graph([LAUNCHER])
    texts = sorted({p.get("simulated_task") or p["text"] for _, p in vectors.points("elements", [LAUNCHER])})
    texts = texts[::max(1, len(texts) // TASKS)][:TASKS]
    edges = [e for out in graph.edges.values() for e in out]
    requests = []
    for k, task in enumerate(texts):
        came = edges[(97 * k) % len(edges)]
        requests += [(task, None, None), (task, came.target, {"screen_id": came.source, "action": came.action,
                                                             "element_id": came.element_id, "detail": came.detail})]
    warm = [plan_json(served, task, start, came) for task, start, came in requests]
    fresh = [plan_json(Planner(store, vectors, embedder), task, start, came) for task, start, came in requests]
    assert sum(bool(p.get("steps")) for p in fresh) >= len(requests) // 2  # most requests get a plan
    assert warm == fresh


def test_a_loaded_graphs_indexes_answer_as_a_scan_of_every_element_and_tap(memory):
    """The rows showing a task's items and the taps whose label a task names, indexed once per loaded graph, are
    those (in that order) that a scan of every element and every tap finds; a graph loaded again after the memory
    changed (`forget`) indexes its own elements."""
    from appmem.agent.appgraph import first_line
    from appmem.agent.candidate_routes import named_taps
    from appmem.agent.taskparse import coverage, parse_task
    from appmem.planconfig import DEFAULT

    store, vectors, embedder = memory
    planner = Planner(store, vectors, embedder)
    graph = planner.graph([LAUNCHER])
    lines = sorted({first_line(e) for e in graph.elements.values()})
    for wanted in ([lines[0]], lines[::7], lines[1::5] + ["no such row"], []):
        assert graph.showing(wanted) == [e for e in graph.elements.values() if first_line(e) in wanted]
    assert graph.showing(lines[::7])
    texts = sorted({p.get("simulated_task") or p["text"] for _, p in vectors.points("elements", [LAUNCHER])})
    found = 0
    for task in texts[::max(1, len(texts) // TASKS)][:TASKS]:
        parsed = parse_task(task)
        scanned = [edge for edge, name in graph.taps() if coverage(name, parsed.words) >= DEFAULT.option_min]
        assert named_taps(graph, parsed, DEFAULT) == scanned
        found += bool(scanned)
    assert found, "some task names a tap"
    planner.forget([LAUNCHER])
    again = planner.graph([LAUNCHER])
    assert again is not graph and again.showing(lines[::7]) == graph.showing(lines[::7])


def test_routes_searched_at_preload_plan_as_routes_searched_on_demand(memory):
    """A graph whose routes were all searched before any plan (what a server preloads) plans each task as a fresh
    planner does, and its new plans from the app's entry search no route."""
    store, vectors, embedder = memory
    preloaded = Planner(store, vectors, embedder)
    graph = preloaded.graph([LAUNCHER])
    graph.search_routes()
    searched = (dict(graph.routes._from), dict(graph.quiet.routes._from))
    assert {screen for screen, _, _ in searched[0]} >= set(graph.edges)
    texts = sorted({p.get("simulated_task") or p["text"] for _, p in vectors.points("elements", [LAUNCHER])})
    texts = texts[1::max(1, len(texts) // TASKS)][:TASKS]
    warm = [plan_json(preloaded, task, None, None) for task in texts]
    assert (graph.routes._from, graph.quiet.routes._from) == searched, "a new plan searched a route"
    assert warm == [plan_json(Planner(store, vectors, embedder), task, None, None) for task in texts]
