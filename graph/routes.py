"""Routes between screens: the one route search and its one cost.

In-app plans, plans that switch apps, hints, the app map and the app document
all route with `Routes` over the stored transitions, so they agree on what the
best way between two screens is. A route's cost is compared in order:
1. its stale edges (not re-observed in the app's newest explored version): a
   route takes one only when no fresh route exists (and the plan flags it);
2. then how likely each hop lands where the route goes, and how long it is,
   together: each hop costs HOP - ln P(the hop lands on its target), with
   P = reliability × share. An edge's reliability is (successes + 1) /
   (successes + failures + 2) over contributor-weighted counts (graph/votes.py:
   one voice per contributor). Its share is how often its action (source screen,
   action, element, detail) led to its target among all that action's recorded
   outcomes, staying on the screen included (a tap that changed nothing does not
   land either), add-one smoothed: (successes + 1) / (all outcomes' successes +
   outcomes). An action with one recorded outcome has share 1; BACK from a screen
   reached from 13 places has about 1/13 for each. Where the recordings saw which
   edge came before an action (graph/follows.py), the route searches over (screen,
   edge it came by) and the share is the one recorded after that edge: BACK
   returns where the route came from. Where the agent stands in a concrete variant
   of its screen that the recordings acted from (graph/variants.py), the route
   searches over (screen, edge, variant) while it knows the variant, and each hop
   weighs what was recorded from that variant (after the edge it came by, where
   recorded). So a shorter route wins, and among equally long ones the one whose
   hops land most surely; a detour wins only over hops that fail or land elsewhere.
"""
from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from typing import Any, Iterable

from appmem.graph.follows import Follows, Group
from appmem.graph.model import reliability
from appmem.graph.store import GraphStore
from appmem.graph.variants import UNSEEN, Variants
from appmem.graph.votes import usable, weighted_counts

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
    key: str = ""  # the transition's key (graph.model.Transition.key)
    share: float = 1.0  # of its action's recorded outcomes, the part that landed on `target` (smoothed)
    layer: str = "public"  # "tenant": only the reading tenant's own keys back it (graph/store.py Viewer)

    @property
    def group(self) -> Group:
        return self.source, self.action, self.element_id, self.detail

    @property
    def reliability(self) -> float:
        return reliability(self.successes, self.failures)

    @property
    def landing(self) -> float:
        """P(the hop lands on its target): it works, and its action leads here rather than elsewhere."""
        return self.reliability * self.share

    @property
    def cost(self) -> float:
        return hop_cost(self.landing, self.stale)

    def hop(self) -> dict[str, Any]:
        return {"action": self.action, "element_id": self.element_id, "detail": self.detail,
                "input_template": self.input_template, "target": self.target, "successes": self.successes,
                "failures": self.failures, "stale": self.stale, "landing": round(self.landing, 4)}


def hop_cost(landing: float, stale: bool) -> float:
    return HOP - math.log(landing) + (STALE if stale else 0.0)


def edges_of(rows: Iterable[dict[str, Any]]) -> list[Edge]:
    """Edges from `planner_app_transitions` rows, with their share of their action's outcomes. An edge only
    contributions report is left out until enough contributors back it (graph/votes.py), before shares are
    taken, so a forged edge dilutes nothing. A no-op (a screen to itself) moves nowhere and is left out, after
    it took its share."""
    kept = [(r, *weighted_counts(r)) for r in rows if usable(r)]
    outcomes: dict[Group, list[float]] = {}
    for r, successes, _ in kept:
        outcomes.setdefault((r["source"], r["action"], r["element_id"], r["detail"]), []).append(successes)
    out = []
    for r, successes, failures in kept:
        if r["source"] == r["target"]:
            continue
        seen = outcomes[(r["source"], r["action"], r["element_id"], r["detail"])]
        out.append(Edge(r["source"], r["target"], r["action"], r["element_id"], r["detail"], r["input_template"],
                        successes, failures, r["stale"], r.get("key", ""), (successes + 1) / (sum(seen) + len(seen)),
                        "public" if r.get("public", True) else "tenant"))
    return out


# (screen, the edge key the route came by when recorded outcomes depend on it else "", the concrete variant it
# stands in when the recordings acted from it else "")
State = tuple[str, str, str]


@dataclass
class Routes:
    """The cheapest routes over a set of edges; the search from each start is done once and kept."""

    edges: dict[str, list[Edge]]  # screen id → edges leaving it
    follows: Follows = field(default_factory=Follows)  # what actions did after which edge (graph/follows.py)
    variants: Variants = field(default_factory=Variants)  # what actions did from which variant (graph/variants.py)
    _from: dict[State, tuple[dict[str, float], dict[str, Edge], dict[str, list[Edge]]]] = field(default_factory=dict)
    # (screen, edge key came by) → (edge, its cost, the state it leads to) for the edges leaving the screen: every
    # search from every start expands the same states, so each is costed once (a variant's, rare, each time)
    _hops_of: dict[tuple[str, str], list[tuple[Edge, float, State]]] = field(default_factory=dict)
    _acting: dict[tuple[str, str], list[Edge]] | None = None  # (screen, element id) → its edges, built once
    # the routes these are `without` some actions of: their kept hop costs are these routes' less those actions'
    _within: "tuple[Routes, frozenset] | None" = None

    @classmethod
    def of(cls, edges: Iterable[Edge], follows: Follows | None = None, variants: Variants | None = None) -> "Routes":
        out: dict[str, list[Edge]] = {}
        for e in edges:
            out.setdefault(e.source, []).append(e)
        return cls(out, follows or Follows(), variants or Variants())

    def without(self, groups: frozenset) -> "Routes":
        """These routes less the edges of these actions (Edge.group), with the same order-2 and variant outcomes:
        a hop's cost does not depend on the other edges, so what these routes costed is kept for them too."""
        out = Routes.of((e for edges in self.edges.values() for e in edges if e.group not in groups), self.follows,
                        self.variants)
        out._within = (self, groups)
        return out

    def acting(self, screen: str, element_id: str) -> list[Edge]:
        """The edges leaving `screen` by acting on the element, in the order they leave it."""
        if self._acting is None:
            self._acting = {}
            for edges in self.edges.values():
                for e in edges:
                    self._acting.setdefault((e.source, e.element_id), []).append(e)
        return self._acting.get((screen, element_id), [])

    def route(self, start: str, target: str, came_by: str = "", variant: str = "") -> list[Edge] | None:
        """The cheapest route from `start` to `target` ([] when they are the same screen), None if none;
        `came_by`: the key of the edge the agent took to `start`, `variant`: the concrete variant it shows, when
        known."""
        if start == target:
            return []
        hops = self._searched(start, came_by, variant)[2].get(target)
        return list(hops) if hops is not None else None

    def reached(self, start: str, came_by: str = "", variant: str = "") -> dict[str, Edge]:
        """Every screen reachable from `start` → the last edge of its cheapest route."""
        return self._searched(start, came_by, variant)[1]

    def cost(self, start: str, target: str, came_by: str = "", variant: str = "") -> float:
        """The cheapest route's cost (inf when there is none)."""
        return 0.0 if start == target else self._searched(start, came_by, variant)[0].get(target, math.inf)

    def _searched(self, start: str, came_by: str, variant: str = ""
                  ) -> tuple[dict[str, float], dict[str, Edge], dict[str, list[Edge]]]:
        state = self._state(start, came_by, variant if self.variants.knows(variant) else "")
        if state not in self._from:
            self._from[state] = self._search(state)
        return self._from[state]

    def hop_cost(self, edge: Edge, came_by: str, prior: float | None = None) -> float:
        """The edge's cost after the route came by edge `came_by` (its order-2 share when recorded, with `prior`
        as its prior: the edge's own share unless a variant's is known)."""
        prior = edge.share if prior is None else prior
        after = self.follows.share(came_by, edge.key, prior) if came_by else None
        return hop_cost(edge.reliability * (prior if after is None else after), edge.stale)

    def _state(self, screen: str, came_by: str, variant: str) -> State:
        return screen, came_by if self.follows.knows(came_by) else "", variant

    def _step(self, state: State, edge: Edge) -> tuple[float, State]:
        """The hop's cost from `state`, and the state it leads to."""
        _, came_by, variant = state
        if variant:
            share, lands_in = self.variants.share(variant, edge.group, edge.key, edge.share)
            if share is None:
                return hop_cost(edge.landing * UNSEEN, edge.stale), self._state(edge.target, edge.key, "")
            # where the action went after the edge the route came by, with the variant's share as the prior
            return self.hop_cost(edge, came_by, share), self._state(edge.target, edge.key, lands_in)
        return self.hop_cost(edge, came_by), self._state(edge.target, edge.key, "")

    def _search(self, start: State) -> tuple[dict[str, float], dict[str, Edge], dict[str, list[Edge]]]:
        """Dijkstra over (screen, edge came by, variant) states (edge costs are positive); each screen is
        reached by its cheapest state."""
        dist: dict[State, float] = {start: 0.0}
        via: dict[State, tuple[State, Edge]] = {}
        best: dict[str, float] = {}
        routes: dict[str, list[Edge]] = {}
        queue = [(0.0, start)]
        while queue:
            d, state = heapq.heappop(queue)
            if d > dist.get(state, math.inf):
                continue
            screen = state[0]
            if screen not in best:
                best[screen] = d
                routes[screen] = self._unwind(state, via)
            for edge, cost, nxt in self._hops(state):
                nd = d + cost
                if nd < dist.get(nxt, math.inf) - 1e-12:
                    dist[nxt] = nd
                    via[nxt] = (state, edge)
                    heapq.heappush(queue, (nd, nxt))
        del best[start[0]], routes[start[0]]
        return best, {s: hops[-1] for s, hops in routes.items()}, routes

    def _hops(self, state: State) -> Iterable[tuple[Edge, float, State]]:
        """(edge, its cost, the state it leads to) for each edge leaving `state`'s screen."""
        if state[2]:
            return [(edge, *self._step(state, edge)) for edge in self.edges.get(state[0], ())]
        hops = self._hops_of.get(state[:2])
        if hops is None:
            kept = self._within[0]._hops_of.get(state[:2]) if self._within else None
            hops = self._hops_of[state[:2]] = (
                [h for h in kept if h[0].group not in self._within[1]] if kept is not None
                else [(edge, *self._step(state, edge)) for edge in self.edges.get(state[0], ())])
        return hops

    @staticmethod
    def _unwind(state: State, via: dict[State, tuple[State, Edge]]) -> list[Edge]:
        hops: list[Edge] = []
        while state in via:
            state, edge = via[state]
            hops.append(edge)
        return hops[::-1]


def load_routes(store: GraphStore, packages: list[str]) -> tuple[Routes, list[dict[str, Any]]]:
    """The routes over the transitions leaving screens of `packages` (into any package), and the rows read."""
    rows = store.read("planner_app_transitions", packages=packages)
    return routes_of(rows, store.read("planner_app_follows", packages=packages)), rows


def routes_of(rows: list[dict[str, Any]], follows: list[dict[str, Any]]) -> Routes:
    """Routes over the edges of planner_app_transitions rows, with the order-2 outcomes planner_app_follows
    read (`follows`)."""
    edges = edges_of(rows)
    groups = {r["key"]: (r["source"], r["action"], r["element_id"], r["detail"]) for r in rows if usable(r)}
    return Routes.of(edges, Follows.of(follows, groups), Variants.of(rows, groups))
