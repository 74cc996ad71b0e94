"""A screen that two tenants' keys report, on the real graph: a screen is keyed by its structure and naming texts,
not its title (the first short text it shows, which may be content such as a contact's name), so one screen may
show each tenant another title. Each tenant reads its own title on every statement that reads titles, the public
none of theirs (before and after its quorum backs the screen: then its own report's; an export neither), and a key's
purge leaves none of its title stored and the graph's counts as if it never reported."""
from __future__ import annotations

import json

from appmem.agent.crowd import lookalike_rows
from appmem.analyst import subgraph
from appmem.formats.ui import Action, ActionType, Bounds, UIState, View
from appmem.graph.graphrows import GraphRows
from appmem.graph.migrate import migrate_screen_titles
from appmem.graph.model import Step, Trace
from appmem.graph.votes import judge_crowd
from appmem.ingest.pipeline import ingest_trace
from appmem.ingest.tenants import layer
from appmem.ingest.purge import purge_observations
from tests.graph.test_identity import cypher_rows
from tests.graph.test_variant_routes import screen

APP = "org.example.people"
OTHER = "org.example.elsewhere"
LAUNCHER = "org.example.launcher"
OPEN = f"/FrameLayout[]#0/Button[{APP}:id/people]#0"
NAMES = ["Jane Cooper", "Bob Stone", "Sam Hill", "Contact"]


def home() -> UIState:
    views = [View(0, -1, [1], "android.widget.FrameLayout", APP, bounds=Bounds(0, 0, 1080, 1920)),
             View(1, 0, [], "android.widget.Button", APP, resource_id=f"{APP}:id/people", text="People",
                  bounds=Bounds(0, 200, 500, 300), clickable=True)]
    return UIState(APP, ".Main", views, state_id="home", observed_at="2026-01-01T00:00:00Z")


def contact(name: str) -> UIState:
    """A contact's page: its name on top (content: no naming text of the screen), a Call button below."""
    views = [View(0, -1, [1, 2], "android.widget.FrameLayout", APP, bounds=Bounds(0, 0, 1080, 1920)),
             View(1, 0, [], "android.widget.TextView", APP, text=name, bounds=Bounds(0, 50, 800, 150)),
             View(2, 0, [], "android.widget.Button", APP, resource_id=f"{APP}:id/call", text="Call",
                  bounds=Bounds(0, 300, 500, 400), clickable=True)]
    return UIState(APP, ".Contact", views, state_id=state_of(name), observed_at="2026-01-01T00:00:00Z")


def state_of(name: str) -> str:
    """A state's id names what it shows (as a recording's do): two contacts' pages are two states of one screen."""
    return "contact-" + name.replace(" ", "-").lower()


def run(name: str, contributor: str, shown: str) -> Trace:
    return Trace(f"people-{name}", "explorer", APP, "1", "dev", "test", "2026-01-02T00:00:00Z", "",
                 states={"home": home(), state_of(shown): contact(shown)},
                 steps=[Step(0, "home", Action(ActionType.TAP, OPEN), state_of(shown))], contributor=contributor)


def screen_id(store) -> str:
    return next(r["id"] for r in cypher_rows(
        store, "MATCH (s:Screen {package: $p, activity: '.Contact'}) RETURN s.id AS id", p=APP))


def titles(store, tenant: str = "") -> dict[str, list[str]]:
    """The contact screen's title on each statement that reads titles, as `tenant` (the public: "") reads it."""
    view = store.viewing(tenant, 1) if tenant else store
    sid = screen_id(store)
    rows = GraphRows.read(store, [APP]).with_layer(view)
    wanted = [{"title": name, "limit": 5} for name in NAMES]
    return {
        "plan": [r["title"] for r in view.read("planner_app_screens", packages=[APP]) if r["id"] == sid],
        "layered": [r["title"] for r in rows.screens if r["id"] == sid],
        "edges": [r["target_title"] for r in view.read("planner_app_transitions", packages=[APP])
                  if r["target"] == sid],
        "layered_edges": [r["target_title"] for r in rows.transitions if r["target"] == sid],
        "map": [r["title"] for r in view.read("map_screens", package=APP) if r["id"] == sid],
        "map_screen": [r["title"] for r in view.read("map_screen", package=APP, screen_id=sid)],
        "screen": [r["title"] for r in view.read("serve_screen", package=APP, screen_id=sid)],
        "doc": sorted({r["title"] for r in view.read("appdoc_elements", package=APP, version="1")
                       if r["screen_id"] == sid}),
        "lookalikes": [r["title"] for r in lookalike_rows(view, wanted, [OTHER]) if r["id"] == sid][:1],
        "recall": [r["title"] for r in view.read("recall_screens", ids=[sid])],
    }


def each(title: str) -> dict[str, list[str]]:
    """Every statement reads `title`."""
    keys = ["plan", "layered", "edges", "layered_edges", "map", "map_screen", "screen", "doc", "lookalikes", "recall"]
    return {k: [title] for k in keys}


def stored_with(store, text: str) -> int:
    """How many nodes keep `text` among their properties (a screen's title or its layer, a state's texts)."""
    rows = cypher_rows(store, "MATCH (n) RETURN n AS n")
    return sum(text in json.dumps(r["n"], default=str) for r in rows)


def test_two_tenants_each_read_their_own_title_of_one_screen_and_the_public_none_of_theirs(empty_graph, redis_client):
    store = empty_graph
    ingest_trace(store, run("acme", "acme/k1", "Jane Cooper"), 10)  # acme's key sees the screen first
    ingest_trace(store, run("wayne", "wayne/k2", "Bob Stone"), 10)
    assert len({r["id"] for r in cypher_rows(store, "MATCH (s:Screen {package: $p}) RETURN s.id AS id", p=APP)}) == 2
    assert titles(store, "acme") == each("Jane Cooper")
    assert titles(store, "wayne") == each("Bob Stone")
    public = titles(store)
    assert "Jane Cooper" not in json.dumps(public) and "Bob Stone" not in json.dumps(public)
    for key in ("pub/1", "pub/2", "pub/3"):  # the public quorum backs the screen: public keys (no tenant)
        ingest_trace(store, run(key, key.split("/")[1], "Sam Hill"), 10, quorum=3)
    judge_crowd(store, [APP], 3)
    assert titles(store) == each("Sam Hill")
    exported = json.dumps(subgraph.read(store, APP).nodes, default=str)  # what every reader may read
    assert "Sam Hill" in exported and "Jane Cooper" not in exported and "Bob Stone" not in exported
    assert titles(store, "acme") == each("Jane Cooper")
    assert titles(store, "wayne") == each("Bob Stone")


def test_a_crawl_titles_a_tenants_screen_for_the_public_and_a_purge_leaves_none_of_a_keys_title(
        empty_graph, redis_client):
    store = empty_graph
    ingest_trace(store, run("wayne-alone", "wayne/k9", "Bob Stone"), 10)
    wayne_only = store.read("crowd_counts")[0]
    purge_observations(store, redis_client, "wayne/k9", 3, None)
    ingest_trace(store, run("acme", "acme/k1", "Jane Cooper"), 10)
    ingest_trace(store, run("wayne", "wayne/k2", "Bob Stone"), 10)
    assert stored_with(store, "Jane Cooper") > 0 and titles(store, "wayne")["plan"] == ["Bob Stone"]
    # `tenants show`: the screens each tenant's own titles are kept for (the home page and the contact's)
    assert [layer(store, t)["titled_screens"] for t in ("acme", "wayne")] == [2, 2]
    purge_observations(store, redis_client, "acme/k1", 3, None)
    assert stored_with(store, "Jane Cooper") == 0 and titles(store, "acme")["plan"] == []
    assert [layer(store, t)["titled_screens"] for t in ("acme", "wayne")] == [0, 2]
    assert titles(store, "wayne") == each("Bob Stone")
    assert store.read("crowd_counts")[0] == wayne_only  # as if acme's key never reported the screen
    ingest_trace(store, run("crawl", "", "Contact"), 10)  # a crawl sees it: its title is the public's
    assert titles(store) == each("Contact")
    assert titles(store, "wayne") == each("Bob Stone")


def test_the_migration_moves_a_tenant_keys_title_kept_as_a_screens_own_to_its_layer(empty_graph, redis_client):
    """A graph written before titles had layers kept the title of the tenant key that created the screen."""
    store = empty_graph
    ingest_trace(store, run("acme", "acme/k1", "Jane Cooper"), 10)
    ingest_trace(store, run("wayne", "wayne/k2", "Bob Stone"), 10)
    cypher_rows(store, "MATCH (s:Screen) WHERE s.package = $p REMOVE s.layer_title_keys, s.layer_titles, "
                       "s.title_owner SET s.title = CASE WHEN s.activity = '.Contact' THEN 'Jane Cooper' "
                       "ELSE 'People' END RETURN count(s) AS n", p=APP)
    assert titles(store, "wayne")["plan"] == [""]  # before the migration, no reader takes it for the public's
    assert migrate_screen_titles(store) == 2 and migrate_screen_titles(store) == 0
    assert titles(store, "acme")["plan"] == ["Jane Cooper"] and titles(store, "wayne")["plan"] == [""]
    assert cypher_rows(store, "MATCH (s:Screen {activity: '.Contact'}) RETURN s.title AS title") == [{"title": None}]


def test_a_tenants_title_of_another_apps_screen_is_read_on_the_edges_entering_it_from_the_planned_app(
        empty_graph, redis_client):
    """A crawl of a launcher whose button opens APP's contact page (the public titles it "Contact"), and acme's
    key that titles that page otherwise: the launcher's edge into it carries acme's title for acme, in its full
    read and in the public's rows with its layer over them alike, and the public's for everyone else."""
    store = empty_graph
    open_people = Action(ActionType.TAP, f"/FrameLayout[]#0/Button[{LAUNCHER}:id/b0]#0")
    ingest_trace(store, Trace("launcher", "explorer", LAUNCHER, "1", "dev", "test", "2026-01-02T00:00:00Z", "",
                              states={"launch": screen(LAUNCHER, "launch", ["People"]),
                                      state_of("Contact"): contact("Contact")},
                              steps=[Step(0, "launch", open_people, state_of("Contact"))]), 10)
    ingest_trace(store, run("acme", "acme/k1", "Jane Cooper"), 10)
    sid, base = screen_id(store), GraphRows.read(store, [LAUNCHER])
    entering = lambda rows: [r["target_title"] for r in rows.transitions if r["target"] == sid]  # noqa: E731
    acme, wayne = store.viewing("acme", 1), store.viewing("wayne", 1)
    assert entering(GraphRows.read(acme, [LAUNCHER])) == entering(base.with_layer(acme)) == ["Jane Cooper"]
    assert base.with_layer(acme).transitions == GraphRows.read(acme, [LAUNCHER]).transitions
    assert base.with_layer(acme).screens == GraphRows.read(acme, [LAUNCHER]).screens  # the launcher's alone
    assert entering(base) == entering(base.with_layer(wayne)) == entering(GraphRows.read(wayne, [LAUNCHER])) == ["Contact"]


def test_a_tenants_look_alikes_are_one_read_of_the_publics_titles_and_its_own(empty_graph, redis_client):
    """planner_crowd_view_screens (a tenant's view's look-alikes, one read) returns planner_crowd_screens' rows, then
    planner_crowd_layer_screens' (the screens its own keys title otherwise), as the two reads return them."""
    store = empty_graph
    ingest_trace(store, run("acme", "acme/k1", "Jane Cooper"), 10)
    for key in ("pub/1", "pub/2", "pub/3"):
        ingest_trace(store, run(key, key.split("/")[1], "Sam Hill"), 10, quorum=3)
    judge_crowd(store, [APP], 3)
    acme = store.viewing("acme", 1)
    wanted = [{"title": t, "limit": 5} for t in sorted({r["title"] for r in acme.read("planner_app_screens",
                                                                                      packages=[APP])})]
    public = acme.read("planner_crowd_screens", titles=wanted, packages=[OTHER])
    own = acme.read("planner_crowd_layer_screens", titles=wanted, packages=[OTHER])
    assert {r["title"] for r in own} == {"Jane Cooper"} and public and not {r["id"] for r in public} & {
        r["id"] for r in own}
    assert acme.read("planner_crowd_view_screens", titles=wanted, packages=[OTHER]) == public + own
    assert lookalike_rows(acme, wanted, [OTHER]) == public + own
    assert lookalike_rows(store, wanted, [OTHER]) == store.read("planner_crowd_screens", titles=wanted,
                                                                packages=[OTHER])
