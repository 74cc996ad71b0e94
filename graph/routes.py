"""Routes between screens: the one route search and its one cost.

In-app plans, plans that switch apps, hints, the app map and the app document
all route with `Routes` over the stored transitions, so they agree on what the
best way between two screens is. A route's cost is compared in order:
1. its stale edges (not re-observed in the app's newest explored version): a
   route takes one only when no fresh route exists (and the plan flags it);
2. then how reliably its transitions worked and how long it is, together: each
   hop costs HOP plus -ln(reliability), with an edge's reliability
   (successes + 1) / (successes + failures + 2) over contributor-weighted
   counts (graph/votes.py: one voice per contributor, not raw counts). So a
   shorter route wins, and among equally long routes the one whose transitions
   worked most often; a detour wins only over edges that failed.
"""
from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from typing import Any, Iterable

from graph.model import reliability
from graph.store import GraphStore
from graph.votes import usable, weighted_counts

HOP = 1.0
STALE = 20.0  # more than any plausible fresh detour


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

    def hop(self) -> dict[str, Any]:
        return {"action": self.action, "element_id": self.element_id, "detail": self.detail,
                "input_template": self.input_template, "target": self.target, "successes": self.successes,
                "failures": self.failures, "stale": self.stale}


def edges_of(rows: Iterable[dict[str, Any]]) -> list[Edge]:
    """Edges from `planner_app_transitions` rows; a no-op (a screen to itself) moves nowhere and is left out,
    and so is an edge only contributions report until enough contributors back it (graph/votes.py)."""
    out = []
    for r in rows:
        if r["source"] != r["target"] and usable(r):
            successes, failures = weighted_counts(r)
            out.append(Edge(r["source"], r["target"], r["action"], r["element_id"], r["detail"], r["input_template"],
                            successes, failures, r["stale"]))
    return out


@dataclass
class Routes:
    """The cheapest routes over a set of edges; the search from each start is done once and kept."""

    edges: dict[str, list[Edge]]  # screen id → edges leaving it
    _from: dict[str, tuple[dict[str, float], dict[str, Edge]]] = field(default_factory=dict)

    @classmethod
    def of(cls, edges: Iterable[Edge]) -> "Routes":
        out: dict[str, list[Edge]] = {}
        for e in edges:
            out.setdefault(e.source, []).append(e)
        return cls(out)

    def route(self, start: str, target: str) -> list[Edge] | None:
        """The cheapest route from `start` to `target` ([] when they are the same screen), None if none."""
        if start == target:
            return []
        via = self.reached(start)
        if target not in via:
            return None
        hops: list[Edge] = []
        node = target
        while node != start:
            edge = via[node]
            hops.append(edge)
            node = edge.source
        return hops[::-1]

    def reached(self, start: str) -> dict[str, Edge]:
        """Every screen reachable from `start` → the last edge of its cheapest route."""
        if start not in self._from:
            self._from[start] = self._search(start)
        return self._from[start][1]

    def _search(self, start: str) -> tuple[dict[str, float], dict[str, Edge]]:
        """Dijkstra: edge costs are positive."""
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


def load_routes(store: GraphStore, packages: list[str]) -> tuple[Routes, list[dict[str, Any]]]:
    """The routes over the transitions leaving screens of `packages` (into any package), and the rows read."""
    rows = store.read("planner_app_transitions", packages=packages)
    return Routes.of(edges_of(rows)), rows
