"""The route cost on a tiny hand-made graph (pure logic): an action's share of its outcomes, and the share
recorded after the edge the route came by (graph/routes.py, graph/follows.py)."""
from __future__ import annotations

import math

from appmem.graph.follows import Follows
from appmem.graph.routes import HOP, Routes, edges_of


def row(source, target, successes, element="x", action="tap", **extra):
    return {"key": f"{source}-{action}:{element}-{target}", "source": source, "target": target, "action": action,
            "element_id": element, "detail": "", "input_template": "", "successes": successes, "failures": 0,
            "stale": False, "trusted": True, **extra}


def test_a_deterministic_action_keeps_its_reliability_and_an_ambiguous_one_pays_for_its_other_outcomes():
    edges = {(e.source, e.target): e for e in edges_of([row("A", "B", 4), row("S", "T", 1, "back", "back"),
                                                         row("S", "U", 1, "back", "back"),
                                                         row("S", "V", 2, "back", "back")])}
    assert edges[("A", "B")].share == 1.0
    assert math.isclose(edges[("A", "B")].cost, HOP - math.log(5 / 6))
    # (successes + 1) / (all outcomes' successes + outcomes)
    assert math.isclose(edges[("S", "T")].share, 2 / 7) and math.isclose(edges[("S", "V")].share, 3 / 7)
    assert math.isclose(edges[("S", "T")].cost, HOP - math.log(2 / 3 * 2 / 7))


def test_a_no_op_takes_its_share_and_a_forged_edge_takes_none():
    edges = edges_of([row("A", "B", 1), row("A", "A", 1),  # the tap changed nothing as often as it led to B
                      row("A", "C", 50, trusted=False)])  # one key's forgery: not used
    assert [(e.target, e.share) for e in edges] == [("B", 0.5)]


def test_a_route_prefers_the_hop_that_surely_lands_over_an_equally_long_ambiguous_one():
    # From S, BACK led to four screens (T among them); the "up" button always led to T.
    rows = [row("S", t, 2, "back", "back") for t in "TUVW"] + [row("S", "T", 1, "up")]
    routes = Routes.of(edges_of(rows))
    assert [e.element_id for e in routes.route("S", "T")] == ["up"]


def test_where_the_route_came_from_decides_where_back_lands():
    # P reaches S by "open"; Q reaches S by "open" too. BACK from S led to P after P's edge, to Q after Q's.
    rows = [row("P", "S", 3, "open"), row("Q", "S", 3, "open"), row("S", "P", 3, "back", "back"),
            row("S", "Q", 3, "back", "back"), row("S", "R", 1, "slow"), row("R", "P", 1, "slow2")]
    edges = edges_of(rows)
    groups = {r["key"]: (r["source"], r["action"], r["element_id"], r["detail"]) for r in rows}
    follows = Follows.of([{"prev": "P-tap:open-S", "next": "S-back:back-P", "observations": 3},
                          {"prev": "Q-tap:open-S", "next": "S-back:back-Q", "observations": 3}], groups)
    routes = Routes.of(edges, follows)
    after_p = routes.hop_cost(next(e for e in edges if e.key == "S-back:back-P"), "P-tap:open-S")
    after_q = routes.hop_cost(next(e for e in edges if e.key == "S-back:back-P"), "Q-tap:open-S")
    assert after_p < after_q
    # (3 + the order-1 share 1/2) / (3 + 1): one pseudo-observation of the order-1 share
    assert math.isclose(after_p, HOP - math.log(4 / 5 * (3.5 / 4)))
    # From S with no history, BACK to P is a coin toss: the route hops through R. Having come from P, BACK
    # lands on P: the route takes it. Having come from Q, it would not.
    assert [e.element_id for e in routes.route("S", "P")] == ["back"]  # still one hop shorter than via R
    assert routes.cost("S", "P", "P-tap:open-S") < routes.cost("S", "P") < routes.cost("S", "P", "Q-tap:open-S")
    # a route through S inherits the history of its own hop into S
    assert [e.target for e in routes.route("P", "P")] == []
    assert [e.key for e in routes.route("Q", "Q")] == []
    via_q = routes.route("Q", "P")
    assert [e.key for e in via_q] == ["Q-tap:open-S", "S-tap:slow-R", "R-tap:slow2-P"]
