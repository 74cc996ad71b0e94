"""Routes conditioned on the concrete variant of the screen the agent stands in (graph/variants.py), on a tiny
hand-made graph (pure logic), and what ingest stores for them on the real graph (the hash of what a screen
showed before scrubbing, from crawls and imports only)."""
from __future__ import annotations

import math

from appmem.agent.appgraph import AppGraph
from appmem.formats.ui import Action, ActionType, Bounds, UIState, View
from appmem.formats.uixml import variant_id
from appmem.graph.model import Step, Trace
from appmem.graph.routes import HOP, Routes, edges_of, routes_of
from appmem.graph.variants import UNSEEN, Variants
from appmem.ingest.pipeline import ingest_trace
from tests.graph.test_route_cost import row


def groups_of(rows):
    return {r["key"]: (r["source"], r["action"], r["element_id"], r["detail"]) for r in rows}


def test_from_a_variant_the_route_takes_what_was_recorded_from_it():
    # Screen S in two variants (its texts in two languages, say). "lang" was tapped from v1 only, "menu" from v2
    # only; both lead to T. "menu" then "pick" from v2's landing lead to G; from T "pick" was recorded from t1.
    rows = [row("S", "T", 3, "lang", variants=["v1>t1"]), row("S", "U", 3, "menu", variants=["v2>u2"]),
            row("U", "T", 3, "pick", variants=["u2>t1"])]
    routes = Routes.of(edges_of(rows), variants=Variants.of(rows, groups_of(rows)))
    assert routes.variants.knows("v1") and routes.variants.knows("v2") and not routes.variants.knows("v9")
    assert [e.element_id for e in routes.route("S", "T", variant="v1")] == ["lang"]
    # from v2, "lang" was never seen to do anything: the two hops recorded from v2 on are cheaper
    assert [e.element_id for e in routes.route("S", "T", variant="v2")] == ["menu", "pick"]
    lang = next(e for e in edges_of(rows) if e.element_id == "lang")
    assert math.isclose(routes.cost("S", "T", variant="v2"), 2 * (HOP - math.log(4 / 5 * 2 / 2)))
    assert routes.cost("S", "T", variant="v2") < HOP - math.log(lang.landing * UNSEEN)
    # a variant nobody acted from, or none: the screen's route, as before
    assert [e.element_id for e in routes.route("S", "T", variant="v9")] == ["lang"]
    assert [e.element_id for e in routes.route("S", "T")] == ["lang"]


def test_a_variant_splits_an_actions_outcomes_by_what_each_was_recorded_from():
    # BACK from S led to P from variant v1 and to Q from v2 (where it goes shows on the screen)
    rows = [row("S", "P", 2, "back", "back", variants=["v1>p"]), row("S", "Q", 2, "back", "back", variants=["v2>q"])]
    routes = Routes.of(edges_of(rows), variants=Variants.of(rows, groups_of(rows)))
    to_p = next(e for e in edges_of(rows) if e.target == "P")
    # (1 recorded outcome + the order-1 share as one pseudo-observation) / (1 outcome + 1)
    assert math.isclose(routes.cost("S", "P", variant="v1"), HOP - math.log(to_p.reliability * (1 + 0.5) / 2))
    assert math.isclose(routes.cost("S", "P", variant="v2"), HOP - math.log(to_p.reliability * 0.5 / 2))
    assert routes.cost("S", "P", variant="v1") < routes.cost("S", "P") < routes.cost("S", "P", variant="v2")


def screen(package: str, state_id: str, texts: list[str]) -> UIState:
    views = [View(0, -1, list(range(1, len(texts) + 1)), "android.widget.FrameLayout", package,
                  bounds=Bounds(0, 0, 1080, 1920))]
    views += [View(k + 1, 0, [], "android.widget.Button", package, resource_id=f"{package}:id/b{k}", text=text,
                   bounds=Bounds(0, 200 * k, 500, 200 * k + 100), clickable=True) for k, text in enumerate(texts)]
    return UIState(package, ".Main", views, state_id=state_id, observed_at="2026-01-01T00:00:00Z")


def trace(package: str, contributor: str = "") -> tuple[Trace, UIState]:
    # the first screen shows an address a user typed: the graph keeps the hash of the screen as shown
    home = screen(package, "home", ["Write to ann@example.org", "Settings"])
    settings = screen(package, "settings", ["Language", "Back"])
    tap = Action(ActionType.TAP, f"/FrameLayout[]#0/Button[{package}:id/b1]#0")
    return Trace(f"variants-{package}-{contributor}", "explorer", package, "1", "dev", "test", "2026-01-01T00:00:00Z",
                 "", states={"home": home, "settings": settings}, steps=[Step(0, "home", tap, "settings")],
                 contributor=contributor), home


def test_ingest_keeps_the_variants_of_what_crawls_and_imports_saw_hashed_before_scrubbing(empty_graph):
    package = "org.example.variants"
    recorded, home = trace(package)
    ingest_trace(empty_graph, recorded, chunk_size=10)
    rows = empty_graph.read("planner_app_transitions", packages=[package])
    live = variant_id(home)  # what a dump of the screen on a device hashes to
    assert [r["variants"] for r in rows] == [[f"{live}>{variant_id(recorded.states['settings'])}"]]
    assert routes_of(rows, empty_graph.read("planner_app_follows", packages=[package])).variants.knows(live)
    graph = AppGraph.load(empty_graph, [package])  # a plan from a dump of the screen routes from its variant
    assert graph.coming(None, rows[0]["source"], live).variant == live
    assert graph.coming(None, rows[0]["source"], "0123456789abcdef") is graph  # a variant nobody acted from
    ingest_trace(empty_graph, recorded, chunk_size=10)  # the same again: nothing new
    assert [r["variants"] for r in empty_graph.read("planner_app_transitions", packages=[package])] == \
        [r["variants"] for r in rows]
    other = "org.example.contributed"
    contributed, _ = trace(other, contributor="key-1")
    ingest_trace(empty_graph, contributed, chunk_size=10)
    assert [r["variants"] for r in empty_graph.read("planner_app_transitions", packages=[other])] == [[]]
