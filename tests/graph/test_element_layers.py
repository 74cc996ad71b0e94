"""An element that two tenants' keys report at one place of a public screen, on the real graph: one node, each
tenant reading its own report of it (texts, locators, bounds, flags: its role), the public nothing of it, and a
key's purge taking its report back, so that the graph's counts are as if it never reported."""
from __future__ import annotations

import json

from appmem.formats.ui import Action, ActionType, Bounds, UIState, View
from appmem.graph.model import Element, Step, Trace
from appmem.ingest.pipeline import ingest_trace
from appmem.ingest.purge import purge_observations
from tests.graph.test_identity import cypher_rows

APP = "org.example.places"
PLACE = f"/FrameLayout[]#0/Button[{APP}:id/b1]#1"  # a second view of Share's class and id: the screen keeps its id


def home(extra: View | None = None) -> UIState:
    """The app's home (Settings, Share), with a view of the same class and id as Share's below them."""
    views = [View(0, -1, [1, 2] + ([3] if extra else []), "android.widget.FrameLayout", APP,
                  bounds=Bounds(0, 0, 1080, 1920)),
             View(1, 0, [], "android.widget.Button", APP, resource_id=f"{APP}:id/b0", text="Settings",
                  bounds=Bounds(0, 0, 500, 100), clickable=True),
             View(2, 0, [], "android.widget.Button", APP, resource_id=f"{APP}:id/b1", text="Share",
                  bounds=Bounds(0, 200, 500, 300), clickable=True)]
    return UIState(APP, ".Main", views + ([extra] if extra else []), state_id="home",
                   observed_at="2026-01-01T00:00:00Z")


def control(text: str, top: int, toggle: bool) -> View:
    """A tenant's own control at PLACE: its texts hold digits (data, naming neither the screen nor the element)."""
    return View(3, 0, [], "android.widget.Button", APP, resource_id=f"{APP}:id/b1", text=text,
                bounds=Bounds(0, top, 500, top + 100), clickable=not toggle, checkable=toggle)


def settings() -> UIState:
    views = [View(0, -1, [1], "android.widget.FrameLayout", APP, bounds=Bounds(0, 0, 1080, 1920)),
             View(1, 0, [], "android.widget.Button", APP, resource_id=f"{APP}:id/back", text="Back",
                  bounds=Bounds(0, 0, 500, 100), clickable=True)]
    return UIState(APP, ".Settings", views, state_id="settings", observed_at="2026-01-01T00:00:00Z")


def run(name: str, contributor: str, start: UIState) -> Trace:
    steps = [Step(0, "home", Action(ActionType.TAP, PLACE if len(start.views) > 3 else
                                    f"/FrameLayout[]#0/Button[{APP}:id/b0]#0"), "settings")]
    return Trace(f"places-{name}", "explorer", APP, "1", "dev", "test", "2026-01-02T00:00:00Z", "",
                 states={"home": start, "settings": settings()}, steps=steps, contributor=contributor)


def at_place(store, tenant: str = "") -> list[dict]:
    """The element at PLACE as `tenant` (the public: "") reads it."""
    view = store.viewing(tenant, 1) if tenant else store
    screen = next(r["id"] for r in cypher_rows(
        store, "MATCH (s:Screen {package: $p, activity: '.Main'}) RETURN s.id AS id", p=APP))
    return [{k: r[k] for k in ("id", "text", "bounds", "flags", "locators")}
            for r in view.elements(screen_ids=[screen]) if r["key"] == PLACE]


def stored_with(store, text: str) -> list[str]:
    return [r["id"] for r in cypher_rows(store, "MATCH (e:Element) RETURN e.id AS id, e AS e")
            if text in json.dumps(r["e"], default=str)]


def test_two_tenants_at_one_place_read_their_own_reports_and_a_purge_takes_one_back(empty_graph, redis_client):
    store = empty_graph
    ingest_trace(store, run("crawl", "", home()), 10)
    public = store.read("crowd_counts")[0]
    acme, wayne = control("Invoice 1001", 400, toggle=False), control("Memo 2002", 500, toggle=True)
    ingest_trace(store, run("wayne-alone", "wayne/k9", home(wayne)), 10)
    wayne_only = store.read("crowd_counts")[0]
    purge_observations(store, redis_client, "wayne/k9", 3, None)
    assert store.read("crowd_counts")[0] == public
    ingest_trace(store, run("acme", "acme/k1", home(acme)), 10)
    ingest_trace(store, run("wayne", "wayne/k2", home(wayne)), 10)
    [own] = at_place(store, "acme")
    [other] = at_place(store, "wayne")
    assert own["id"] == other["id"] and stored_with(store, "Invoice 1001") == [own["id"]]  # one element
    assert (own["text"], own["bounds"], own["flags"]) == ("Invoice 1001", [0, 400, 500, 500], ["clickable", "enabled"])
    assert (other["text"], other["bounds"]) == ("Memo 2002", [0, 500, 500, 600]) and "checkable" in other["flags"]
    assert any("Memo 2002" in locator for locator in other["locators"])
    assert not any("Invoice" in locator for locator in other["locators"])
    assert Element(own["id"], "", flags=own["flags"], class_name="android.widget.Button").role == "tap"
    assert Element(other["id"], "", flags=other["flags"], class_name="android.widget.Button").role == "toggle"
    assert at_place(store) == []  # the public reads nothing of it
    assert reports(store) == [("acme/k1", "acme/" + own["id"], "Invoice 1001"), ("wayne/k2", "wayne/" + own["id"], "Memo 2002")]
    [element] = cypher_rows(store, "MATCH (e:Element {id: $id}) RETURN e AS e", id=own["id"])
    assert not any(k.startswith("layer_") for k in element["e"])  # the reports are nodes of their own
    purge_observations(store, redis_client, "acme/k1", 3, None)
    assert reports(store) == [("wayne/k2", "wayne/" + own["id"], "Memo 2002")]
    assert stored_with(store, "Invoice 1001") == [] and at_place(store, "acme") == []
    assert at_place(store, "wayne") == [other]
    left = cypher_rows(store, "MATCH (e:Element {id: $id}) RETURN e.bounds AS bounds, e.flags AS flags", id=other["id"])
    assert left == [{"bounds": other["bounds"], "flags": other["flags"]}]  # none of acme's left on it
    assert store.read("crowd_counts")[0] == wayne_only
    purge_observations(store, redis_client, "wayne/k2", 3, None)
    assert store.read("crowd_counts")[0] == public and stored_with(store, "Memo 2002") == []
    assert reports(store) == []


def test_a_public_element_keeps_no_trace_of_a_purged_tenant_report(empty_graph, redis_client):
    store = empty_graph
    ingest_trace(store, run("crawl", "", home(control("Public 1", 400, toggle=False))), 10)
    [public] = at_place(store)
    before = cypher_rows(store, "MATCH (e:Element {id: $id}) RETURN e AS e", id=public["id"])
    ingest_trace(store, run("acme", "acme/k1", home(control("Invoice 1001", 400, toggle=False))), 10)
    assert [r[2] for r in reports(store)] == ["Invoice 1001"] and at_place(store, "acme")[0]["id"] == public["id"]
    purge_observations(store, redis_client, "acme/k1", 3, None)
    assert reports(store) == []
    assert cypher_rows(store, "MATCH (e:Element {id: $id}) RETURN e AS e", id=public["id"]) == before


def reports(store) -> list[tuple[str, str, str]]:
    """Every Report node: its key, slot and text, by key."""
    return [(r["key"], r["slot"], r["text"]) for r in cypher_rows(
        store, "MATCH (x:Report)-[:OF]->(:Element) RETURN x.contributor AS key, x.slot AS slot, x.text AS text "
               "ORDER BY key")]


def test_reports_kept_in_an_elements_layer_lists_migrate_to_report_nodes_a_purge_deletes(empty_graph, redis_client):
    """An element two tenants' keys reported, written when their reports were kept in the element's own layer lists:
    `appmem migrate` makes each a Report node (the lists go), each tenant reads its own report as before, the
    public none, and a key's purge deletes its report node and leaves the graph's counts as before the key."""
    from appmem.graph.migrate import migrate

    store = empty_graph
    ingest_trace(store, run("crawl", "", home()), 10)
    public = store.read("crowd_counts")[0]
    ingest_trace(store, run("wayne", "wayne/k2", home(control("Memo 2002", 500, toggle=True))), 10)
    wayne_only = store.read("crowd_counts")[0]
    [place] = at_place(store, "wayne")
    # the graph as written before reports were nodes: wayne's report in the element's lists, acme's beside it
    cypher_rows(store, "MATCH (x:Report) DETACH DELETE x")
    cypher_rows(store, "MATCH (e:Element {id: $id}) SET e.crowd_keys = ['wayne/k2', 'acme/k1'], "
                       "e.layer_keys = ['wayne/k2', 'acme/k1'], e.layer_texts = ['Memo 2002', 'Invoice 1001'], "
                       "e.layer_descs = ['', ''], e.layer_labels = ['Memo 2002', 'Invoice 1001'], "
                       "e.layer_bounds = [0, 500, 500, 600, 0, 400, 500, 500], "
                       "e.layer_flag_sets = ['\u001Fcheckable', '\u001Fclickable\u001Fenabled'], "
                       "e.layer_locator_sets = ['\u001F//*[@text=\\'Memo 2002\\']', '\u001F//*[@text=\\'Invoice 1001\\']'] "
                       "REMOVE e.reports", id=place["id"])
    assert at_place(store, "wayne")[0]["text"] == ""  # not migrated: no reader reads the lists
    assert migrate(store)["texts"]["reports"] == 1
    assert reports(store) == [("acme/k1", "acme/" + place["id"], "Invoice 1001"),
                              ("wayne/k2", "wayne/" + place["id"], "Memo 2002")]
    [element] = cypher_rows(store, "MATCH (e:Element {id: $id}) RETURN e AS e", id=place["id"])
    assert not any(k.startswith("layer_") for k in element["e"])
    [acme], [wayne] = at_place(store, "acme"), at_place(store, "wayne")
    assert (acme["text"], acme["bounds"], acme["flags"], acme["locators"]) == (
        "Invoice 1001", [0, 400, 500, 500], ["clickable", "enabled"], ["//*[@text='Invoice 1001']"])
    assert (wayne["text"], wayne["bounds"], wayne["flags"]) == ("Memo 2002", [0, 500, 500, 600], ["checkable"])
    assert at_place(store) == []
    assert migrate(store)["texts"]["reports"] == 0
    purge_observations(store, redis_client, "acme/k1", 3, None)
    assert reports(store) == [("wayne/k2", "wayne/" + place["id"], "Memo 2002")]
    assert store.read("crowd_counts")[0] == wayne_only
    purge_observations(store, redis_client, "wayne/k2", 3, None)
    assert reports(store) == [] and store.read("crowd_counts")[0] == public


FIELD = f"/FrameLayout[]#0/EditText[{APP}:id/note]#0"


def with_field() -> UIState:
    """Home with a note field below its buttons."""
    state = home()
    field = View(3, 0, [], "android.widget.EditText", APP, resource_id=f"{APP}:id/note", bounds=Bounds(0, 400, 1000, 500),
                 clickable=True, editable=True)
    state.views[0].children.append(3)
    state.views.append(field)
    return state


def typed(name: str, contributor: str, text: str) -> Trace:
    """A run that types `text` into the note field, which opens the settings."""
    return Trace(f"typed-{name}", "explorer", APP, "1", "dev", "test", "2026-01-03T00:00:00Z", "",
                 states={"home": with_field(), "settings": settings()},
                 steps=[Step(0, "home", Action(ActionType.INPUT, FIELD, text), "settings")], contributor=contributor)


def template(store, tenant: str = "") -> list[str]:
    """What `tenant` (the public: "") reads of the typing edge's input template, where it reads the edge."""
    view = store.viewing(tenant, 1) if tenant else store
    return [r["input_template"] for r in view.read("planner_app_transitions", packages=[APP])
            if r["action"] == "input" and r["trusted"]]


def relationships_with(store, text: str) -> int:
    rows = cypher_rows(store, "MATCH ()-[t:TRANSITION]->() RETURN t AS t")
    return sum(text in json.dumps(r["t"], default=str) for r in rows)


def test_what_a_tenants_key_typed_on_an_edge_is_read_by_its_tenant_alone(empty_graph, redis_client):
    """An edge is keyed by its action's place, not what was typed: a tenant key that types into a field first, and
    another tenant's key, report one edge; each reads its own typed text as the edge's template, the public the
    crawl's, and a purge leaves none of a key's."""
    store = empty_graph
    ingest_trace(store, run("crawl", "", home()), 10)
    ingest_trace(store, typed("acme", "acme/k1", "Falcon launch"), 10)
    ingest_trace(store, typed("wayne", "wayne/k2", "Harbor audit"), 10)
    assert (template(store, "acme"), template(store, "wayne"), template(store)) == (["Falcon launch"],
                                                                                   ["Harbor audit"], [])
    ingest_trace(store, typed("crawl", "", "hello world"), 10)  # a crawl types into it too: the edge is public
    assert (template(store, "acme"), template(store, "wayne"), template(store)) == (["Falcon launch"],
                                                                                   ["Harbor audit"], ["hello world"])
    for key in ("acme/k1", "wayne/k2"):
        purge_observations(store, redis_client, key, 3, None)
    assert relationships_with(store, "Falcon") == 0 and relationships_with(store, "Harbor") == 0
    assert template(store, "acme") == template(store) == ["hello world"]
    purged = store.read("crowd_counts")[0]
    while store.write("delete_all")[0]["deleted"]:
        pass
    ingest_trace(store, run("crawl", "", home()), 10)
    ingest_trace(store, typed("crawl", "", "hello world"), 10)
    assert purged == store.read("crowd_counts")[0]  # as if the tenants' keys never typed there
