"""An app's UTG in memory: screens, their elements, transitions, and reliable routes between screens.

Planning reads the same few thousand rows for every task of an app, so the
planner loads them once per package (three Cypher reads) and routes in code:
Dijkstra over transitions, where a hop costs HOP plus -ln(reliability), with an
edge's reliability (successes + 1) / (successes + failures + 2) (CONTRACTS §1).
So a shorter route wins, and among equally long routes the one whose
transitions worked most often. A stale edge (not re-observed in the newest
explored version) costs STALE more, more than any plausible fresh detour, so a
plan avoids stale edges whenever a fresh route exists and takes (and flags) them
only when none does.
"""
from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from typing import Any

from graph.model import Element, reliability
from graph.store import GraphStore, element_of
from graph.votes import usable, weighted_counts

HOP = 1.0
STALE = 20.0


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    action: str
    element_id: str
    detail: str
    input_template: str
    successes: float  # contributor-weighted (graph/votes.py)
    failures: float
    stale: bool

    @property
    def reliability(self) -> float:
        return reliability(self.successes, self.failures)

    @property
    def cost(self) -> float:
        return HOP - math.log(self.reliability) + (STALE if self.stale else 0.0)


@dataclass
class AppGraph:
    packages: tuple[str, ...]
    screens: dict[str, dict[str, Any]]
    elements: dict[str, Element]
    risky: set[str]
    on_screen: dict[str, list[str]]  # screen id → element ids, in key order
    edges: dict[str, list[Edge]]  # screen id → edges leaving it
    _routes: dict[str, tuple[dict[str, float], dict[str, Edge]]] = field(default_factory=dict)

    @classmethod
    def load(cls, store: GraphStore, packages: list[str]) -> "AppGraph":
        screens = {r["id"]: r for r in store.read("planner_app_screens", packages=packages)}
        elements, risky, on_screen = {}, set(), {}
        for row in store.elements(screen_ids=[s for s, r in screens.items() if r["package"] in packages]):
            element = elements[row["id"]] = element_of(row)
            on_screen.setdefault(element.screen_id, []).append(element.id)
            if row["risky"]:
                risky.add(element.id)
        edges: dict[str, list[Edge]] = {}
        for r in store.read("planner_app_transitions", packages=packages):
            if r["source"] == r["target"] or not usable(r):
                continue  # a no-op moves nowhere; an edge too few contributors back is not memory yet
            screens.setdefault(r["target"], {"id": r["target"], "package": r["target_package"], "activity": "",
                                             "signature": "", "title": r["target_title"]})
            successes, failures = weighted_counts(r)  # one voice per contributor, not raw counts
            edges.setdefault(r["source"], []).append(Edge(
                r["source"], r["target"], r["action"], r["element_id"], r["detail"], r["input_template"],
                successes, failures, r["stale"]))
        return cls(tuple(packages), screens, elements, risky, on_screen, edges)

    def screen_elements(self, screen_id: str) -> list[Element]:
        return [self.elements[i] for i in self.on_screen.get(screen_id, ())]

    def opens(self, element: Element) -> str | None:
        """The screen acting on `element` most reliably led to (another screen than its own)."""
        out = [e for e in self.edges.get(element.screen_id, ()) if e.element_id == element.id]
        return max(out, key=lambda e: (e.reliability, e.successes)).target if out else None

    def route(self, start: str, target: str) -> list[Edge] | None:
        """The cheapest route from `start` to `target` ([] when they are the same screen), None if none."""
        if start == target:
            return []
        if start not in self._routes:
            self._routes[start] = self._dijkstra(start)
        _, via = self._routes[start]
        if target not in via:
            return None
        hops: list[Edge] = []
        node = target
        while node != start:
            edge = via[node]
            hops.append(edge)
            node = edge.source
        return hops[::-1]

    def route_cost(self, start: str, target: str) -> float | None:
        if start == target:
            return 0.0
        if self.route(start, target) is None:
            return None
        return self._routes[start][0][target]

    def _dijkstra(self, start: str) -> tuple[dict[str, float], dict[str, Edge]]:
        dist: dict[str, float] = {start: 0.0}
        via: dict[str, Edge] = {}
        queue = [(0.0, start)]
        while queue:
            d, node = heapq.heappop(queue)
            if d > dist.get(node, math.inf):
                continue
            for edge in self.edges.get(node, ()):
                nd = d + edge.cost
                if nd < dist.get(edge.target, math.inf) - 1e-12:
                    dist[edge.target] = nd
                    via[edge.target] = edge
                    heapq.heappush(queue, (nd, edge.target))
        return dist, via


def route_hops(store: GraphStore, source_id: str, target_id: str) -> list[dict[str, Any]] | None:
    """The planner's route between two screens as hops ({action, element_id, detail, target, successes,
    failures, stale}), for the app map; None when there is none or the source is unknown."""
    rows = store.read("planner_screen_package", screen_id=source_id)
    if not rows:
        return None
    hops = AppGraph.load(store, [rows[0]["package"]]).route(source_id, target_id)
    if hops is None:
        return None
    return [{"action": h.action, "element_id": h.element_id, "detail": h.detail, "target": h.target,
             "successes": h.successes, "failures": h.failures, "stale": h.stale} for h in hops]
