"""A tenant's view of an app's graph built from the public's rows with its layer over them (graph/graphrows.py), on
the real graph: the same rows, graph and routes as the view's own full read, and the layer's reads return only
what the tenant's keys reported."""
from __future__ import annotations

from appmem.agent.appgraph import AppGraph
from appmem.formats.ui import Action, ActionType
from appmem.graph.graphrows import GraphRows
from appmem.graph.model import Step, Trace
from appmem.graph.votes import judge_crowd
from appmem.ingest.pipeline import ingest_trace
from tests.graph.test_identity import cypher_rows
from tests.graph.test_variant_routes import screen

APP, SYSTEM = "org.example.layers", "com.android.permissioncontroller"
FIELDS = ("screens", "elements", "transitions", "side", "side_elements", "entries", "follows")


def tap(package: str, k: int) -> Action:
    return Action(ActionType.TAP, f"/FrameLayout[]#0/Button[{package}:id/b{k}]#0")


def trace(name: str, contributor: str, states: dict, steps: list[tuple[str, Action, str]], day: int = 1) -> Trace:
    return Trace(f"layers-{name}", "explorer", APP, "1", "dev", "test", f"2026-01-{day:02d}T00:00:00Z", "",
                 states=states, steps=[Step(i, a, action, b) for i, (a, action, b) in enumerate(steps)],
                 contributor=contributor)


def memory(store) -> None:
    """A crawl of APP (home → settings, a permission dialog and back), over which two tenants' keys report screens,
    controls and edges of their own, and a control acme's key reported first that three public keys then backed,
    written before texts had owners (`appmem migrate` gives its texts to acme's key)."""
    home, settings = screen(APP, "home", ["Settings", "Share"]), screen(APP, "settings", ["Language", "Back"])
    allow = screen(SYSTEM, "allow", ["Allow", "Deny"])
    ingest_trace(store, trace("crawl", "", {"home": home, "settings": settings, "allow": allow},
                              [("home", tap(APP, 0), "settings"), ("home", tap(APP, 1), "allow"),
                               ("allow", tap(SYSTEM, 0), "home")]), 10)
    mine = screen(APP, "home", ["Settings", "Share", "Payroll"])  # home with acme's own button
    payroll = screen(APP, "payroll", ["Salaries", "Export"])  # a screen only acme's keys report
    other = screen("com.example.vault", "vault", ["Unlock"])  # another app's screen only acme's edge enters
    ingest_trace(store, trace("acme", "acme/k1", {"home": mine, "settings": settings, "payroll": payroll,
                                                  "vault": other},
                              [("home", tap(APP, 2), "payroll"), ("home", tap(APP, 0), "settings"),
                               ("payroll", tap(APP, 1), "vault"), ("vault", Action(ActionType.BACK), "payroll")]), 10)
    secret = screen(APP, "secret", ["Vault", "Keys"])
    ingest_trace(store, trace("wayne", "wayne/k1", {"settings": settings, "secret": secret},
                              [("settings", tap(APP, 1), "secret")]), 10)
    first = screen(APP, "settings", ["Language", "Back", "Acme help"])
    for n, key in enumerate(["acme/k1", "k1", "k2", "k3"]):
        ingest_trace(store, trace(f"help-{n}", key, {"settings": first, "home": home},
                                  [("settings", tap(APP, 2), "home")], day=2 + n), 10)
    judge_crowd(store, [APP], 3)
    cypher_rows(store, "MATCH (e:Element) WHERE e.text = 'Acme help' REMOVE e.text_owner")
    assert store.write("migrate_text_owner")[0]["owned"] == 1


def test_a_tenants_view_is_the_public_rows_with_its_layer_over_them_and_reads_only_its_layer(empty_graph):
    memory(empty_graph)
    base = GraphRows.read(empty_graph, [APP])
    assert all(r["package"] == APP for r in base.screens) and base.side  # the dialog's Allow leads back
    for tenant, own in (("acme", "Payroll"), ("wayne", "Vault")):
        view = empty_graph.viewing(tenant, 1)
        full, layered = GraphRows.read(view, [APP]), base.with_layer(view)
        assert {f: getattr(layered, f) for f in FIELDS} == {f: getattr(full, f) for f in FIELDS}, tenant
        graph, built = AppGraph.load(view, [APP]), AppGraph.build(layered)
        assert (built.screens, built.elements, built.on_screen, built.risky, built.stays) == \
               (graph.screens, graph.elements, graph.on_screen, graph.risky, graph.stays)
        assert built.edges == graph.edges
        assert {built.route(a, b) == graph.route(a, b) for a in graph.screens for b in graph.screens} == {True}
        shared = {e.text for e in AppGraph.build(base).elements.values()}
        assert own in {e.text for e in built.elements.values()} - shared
        assert {e.layer for edges in built.edges.values() for e in edges} == {"public", "tenant"}
    # what the layer's reads return: only acme's keys' (its screens, the controls and edges they back or counted,
    # the texts they reported first); nothing of wayne's, nothing the public reads as acme does
    acme = empty_graph.viewing("acme", 1)
    screens = acme.read("planner_layer_screens", packages=[APP], targets=[])
    elements = acme.read("planner_layer_elements", packages=[APP])
    elements += acme.read("planner_layer_controls", ids=sorted({r["id"] for r in base.side_elements}))
    edges = acme.read("planner_layer_transitions", packages=[APP])
    public = {r["id"]: r for r in base.elements}
    assert screens and elements and edges
    assert {r["id"] for r in screens}.isdisjoint(r["id"] for r in base.screens)
    assert {r["text"] for r in elements} >= {"Payroll", "Salaries", "Acme help"}
    assert [r for r in elements if r["id"] in public and r == public[r["id"]]] == []  # else the public's row is its own
    assert public[next(r["id"] for r in elements if r["text"] == "Acme help")]["text"] == ""  # the public's: no texts
    assert not {"Vault", "Keys"} & {r["text"] for r in elements}
    assert all(r["own_counts"] or not r["public"] for r in edges)
    assert {r["target_package"] for r in edges} >= {"com.example.vault"}  # its edge into another app, and back
    assert any(r["source_package"] == "com.example.vault" for r in edges)
    # the public reads no layer at all
    assert base.with_layer(empty_graph) is base
