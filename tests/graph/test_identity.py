"""One memory across devices, profiles and versions: times, outcomes, screen identity, updates."""
from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timezone

from appmem.graph.migrate import migrate
from appmem.graph.times import utc_iso
from appmem.ingest.droidbot import read_recording, recording_trace
from appmem.ingest.pipeline import ingest_trace
from tests.conftest import DROIDBOT, REPO


def cypher_rows(store, query, **params):
    with store.driver.session(database=store.database) as session:
        return [r.data() for r in session.run(query, params)]


def test_every_time_format_becomes_one_utc_form():
    assert utc_iso("2023-10-19_025206") == "2023-10-19T02:52:06Z"
    assert utc_iso("2023-10-19 02:52:06") == "2023-10-19T02:52:06Z"
    assert utc_iso("2023-10-19T04:52:06+02:00") == "2023-10-19T02:52:06Z"
    assert utc_iso(datetime(2023, 10, 19, 2, 52, 6, tzinfo=timezone.utc)) == "2023-10-19T02:52:06Z"
    assert utc_iso("") == ""


def test_imported_times_are_datetimes_and_old_graphs_migrate(empty_graph):
    folder = DROIDBOT / "ru.ikkui.achie"
    ingest_trace(empty_graph, recording_trace(read_recording(folder)), chunk_size=100)
    row = cypher_rows(empty_graph, "MATCH (s:Screen)-[t:TRANSITION]->() RETURN s.first_seen AS a, "
                                   "t.last_seen AS b, t.first_seen <= t.last_seen AS ordered LIMIT 1")[0]
    assert row["a"].tzinfo is not None and row["b"].tzinfo is not None and row["ordered"]
    # A graph written before: string times of every format, one already a datetime.
    cypher_rows(empty_graph, "CREATE (:Trace {id: 'old', started: '2023-10-19 02:52:06', ended: '2023-10-19_030000'}) "
                             "CREATE (:State {id: 'old-state', observed_at: '2023-10-19_025206'}) "
                             "CREATE (:State {id: 'no-time'})")  # an AutoDroid state has none: not a string
    report = migrate(empty_graph)
    assert report["times"] == {"trace": 1, "state": 1}
    old = cypher_rows(empty_graph, "MATCH (t:Trace {id: 'old'}), (s:State {id: 'old-state'}) "
                                   "RETURN t.started < t.ended AS ordered, s.observed_at = t.started AS same")[0]
    assert old == {"ordered": True, "same": True}
    assert migrate(empty_graph)["times"] == {}


def test_migrate_judges_contribution_only_screens_and_elements_against_the_quorum(empty_graph):
    # written before crowd trust was stored: a screen three keys reported, an element one key did
    cypher_rows(empty_graph, "CREATE (a:App {id: 'app-old', package: 'org.old.app', version: '1'}) "
                             "CREATE (a)-[:HAS_SCREEN]->(s:Screen {id: 'old-screen', package: 'org.old.app', "
                             "crowd_only: true, crowd_keys: ['k1', 'k2', 'k3']}) "
                             "CREATE (s)-[:HAS_ELEMENT]->(:Element {id: 'old-element', screen_id: 'old-screen', "
                             "crowd_only: true, crowd_keys: ['k1']})")
    assert migrate(empty_graph, quorum=3)["crowd_trust"] == {"screens": 1, "elements": 1, "links": 0}
    trusted = cypher_rows(empty_graph, "MATCH (s:Screen {id: 'old-screen'})-[:HAS_ELEMENT]->(e:Element) "
                                       "RETURN s.crowd_trusted AS screen, e.crowd_trusted AS element")[0]
    assert trusted == {"screen": True, "element": False}
    assert empty_graph.elements(screen_ids=["old-screen"]) == []  # one key's element: held out


def test_migrate_gives_old_elements_texts_their_owner_and_a_tenant_keys_texts_its_layer(empty_graph):
    """Written before texts had owners: an element a tenant's key reported first, a public key's, and one a crawl
    saw after a contribution (no longer crowd-only); written before a tenant key's report was kept in the
    element's layer: one whose texts a tenant key owns, and one whose owner was purged since. A tenant key's texts
    move to the element's layer (read by its tenant alone), a purged key's go; so does what a tenant's key typed on
    an edge only contributions report, which it reported first."""
    def element(eid: str, text: str, keys: list[str], crowd_only: bool = True, owner: str | None = None) -> str:
        return (f"CREATE (:Element {{id: '{eid}', text: '{text}', content_desc: '', label: '{text}', "
                f"bounds: [0, 0, 9, 9], flags: ['clickable'], crowd_only: {str(crowd_only).lower()}, "
                f"crowd_keys: {keys}, locators: [\"//*[@text='{text}']\", '/hierarchy/V[1]']"
                + (f", text_owner: '{owner}'" if owner else "") + "})")
    cypher_rows(empty_graph, " ".join([
        element("by-tenant", "Payroll", ["acme/k1", "k2"]), element("by-key", "Share", ["k3"]),
        element("crawled", "Home", ["acme/k1"], crowd_only=False),
        element("owned", "Vault", ["wayne/k1"], owner="wayne/k1"), element("purged", "Keys", ["k4"], owner="wayne/k2")]))
    cypher_rows(empty_graph, "CREATE (a:Screen {id: 'a'})-[:TRANSITION {key: 'typed', action: 'input', crowd_only: true, "
                             "crowd_keys: ['acme/k1', 'k2'], input_template: 'Falcon launch'}]->(b:Screen {id: 'b'}) "
                             "CREATE (a)-[:TRANSITION {key: 'crawled', action: 'input', crowd_only: false, "
                             "crowd_keys: ['acme/k1'], input_template: 'hello'}]->(b)")
    assert migrate(empty_graph)["texts"] == {"layer_sets": 0, "owned": 5, "reports": 2, "typed": 1}
    edges = {r["key"]: r for r in cypher_rows(
        empty_graph, "MATCH ()-[t:TRANSITION]->() RETURN t.key AS key, t.input_template AS typed, "
                     "t.layer_input_keys AS keys, t.layer_inputs AS inputs")}
    assert edges == {"typed": {"key": "typed", "typed": "", "keys": ["acme/k1"], "inputs": ["Falcon launch"]},
                     "crawled": {"key": "crawled", "typed": "hello", "keys": None, "inputs": None}}
    rows = {r["id"]: r for r in cypher_rows(
        empty_graph, "MATCH (e:Element) RETURN e.id AS id, e.text_owner AS owner, e.text AS text, "
                     "e.locators AS locators, e.layer_keys AS layer")}
    assert {i: (r["owner"], r["text"]) for i, r in rows.items()} == {
        "by-tenant": (None, None), "by-key": ("k3", "Share"), "crawled": ("", "Home"), "owned": (None, None),
        "purged": (None, None)}
    assert all(r["layer"] is None for r in rows.values())  # the lists went: each report is a node
    assert rows["by-tenant"]["locators"] == ["/hierarchy/V[1]"]
    reports = {r["element"]: r for r in cypher_rows(
        empty_graph, "MATCH (x:Report)-[:OF]->(e:Element) RETURN e.id AS element, x.id AS id, x.slot AS slot, "
                     "x.contributor AS key, x.text AS text, x.flags AS flags, x.bounds AS bounds, "
                     "x.locators AS locators")}
    assert set(reports) == {"by-tenant", "owned"}  # a purged key's texts go
    assert reports["by-tenant"] == {"element": "by-tenant", "id": "acme/k1|by-tenant", "slot": "acme/by-tenant",
                                    "key": "acme/k1", "text": "Payroll", "flags": ["clickable"], "bounds": [0, 0, 9, 9],
                                    "locators": ["//*[@text='Payroll']", "/hierarchy/V[1]"]}
    assert reports["owned"]["key"] == "wayne/k1" and reports["owned"]["text"] == "Vault"
    assert migrate(empty_graph)["texts"] == {"layer_sets": 0, "owned": 0, "reports": 0, "typed": 0}


def test_migrate_makes_each_tenant_reports_flat_flags_and_locators_its_own_entry(empty_graph):
    """Written before each report's flags and locators were one entry of the element's layer: flat lists with each
    value's key. `appmem migrate` makes them one entry per report, in the layer's order (a report of no flags an
    empty one), the flat lists go, and each tenant reads its own report's flags and locators as before."""
    from appmem.graph.store import element_of

    cypher_rows(empty_graph, "CREATE (s:Screen {id: 's', package: 'org.flat.app'})-[:HAS_ELEMENT]->(:Element {"
                             "id: 'flat', screen_id: 's', key: 'k', crowd_only: true, crowd_keys: ['acme/k1', 'wayne/k1'], "
                             "bounds: [0, 0, 9, 9], flags: ['clickable'], locators: ['/hierarchy/V[1]'], "
                             "layer_keys: ['acme/k1', 'wayne/k1'], layer_texts: ['Payroll', 'Vault'], "
                             "layer_descs: ['', ''], layer_labels: ['Payroll', 'Vault'], "
                             "layer_bounds: [0, 0, 9, 9, 1, 1, 8, 8], layer_flags: ['clickable', 'checkable'], "
                             "layer_flag_keys: ['acme/k1', 'acme/k1'], layer_locators: [\"//*[@text='Payroll']\", "
                             "'/hierarchy/V[1]', \"//*[@text='Vault']\"], "
                             "layer_locator_keys: ['acme/k1', 'acme/k1', 'wayne/k1']})")
    assert migrate(empty_graph)["texts"]["layer_sets"] == 1
    row = cypher_rows(empty_graph, "MATCH (e:Element {id: 'flat'}) RETURN e.layer_flag_sets AS flags, "
                                   "e.layer_locator_sets AS locators, e.layer_flags AS flat, e.layer_flag_keys AS flat_keys, "
                                   "e.layer_locators AS flat_locators, e.layer_locator_keys AS flat_locator_keys")[0]
    assert set(row.values()) == {None}  # the flat lists and the sets they became: each report is a node now
    reports = cypher_rows(empty_graph, "MATCH (x:Report)-[:OF]->(:Element {id: 'flat'}) RETURN x.contributor AS key, "
                                       "x.flags AS flags, x.locators AS locators, x.seq AS seq ORDER BY seq")
    assert reports == [{"key": "acme/k1", "flags": ["clickable", "checkable"], "seq": 1,
                        "locators": ["//*[@text='Payroll']", "/hierarchy/V[1]"]},
                       {"key": "wayne/k1", "flags": [], "locators": ["//*[@text='Vault']"], "seq": 2}]
    read = {tenant: element_of(empty_graph.viewing(tenant, 1).elements(ids=["flat"])[0]) for tenant in ("acme", "wayne")}
    assert (read["acme"].text, read["acme"].flags, read["acme"].locators) == (
        "Payroll", ["clickable", "checkable"], ["//*[@text='Payroll']", "/hierarchy/V[1]"])
    assert (read["wayne"].text, read["wayne"].flags, read["wayne"].locators) == ("Vault", [], ["//*[@text='Vault']"])
    assert migrate(empty_graph)["texts"]["layer_sets"] == 0


def test_migrate_counts_the_screens_of_the_old_id_form_keeps_them_and_retires_what_servers_loaded(
        empty_graph, redis_client, stack_env):
    """A screen whose id still holds its app version (written before screen ids lost it) beside one of the
    current form: `appmem migrate` counts the first, deletes nothing, says to re-import, and moves every
    app's generation (serving processes drop the graphs, indexes and plans they loaded before)."""
    from appmem import generations
    from appmem.formats.ui import stable_id
    from appmem.graph.screens import id_of

    old, new = stable_id("screen", "org.old.app", "1", "sig-a"), id_of("org.old.app", "sig-b")
    cypher_rows(empty_graph, "CREATE (a:App {id: 'app-old', package: 'org.old.app', version: '1'}) "
                             "CREATE (a)-[:HAS_SCREEN]->(:Screen {id: $old, package: 'org.old.app', signature: 'sig-a'}) "
                             "CREATE (a)-[:HAS_SCREEN]->(:Screen {id: $new, package: 'org.old.app', signature: 'sig-b'})",
                old=old, new=new)
    before = generations.current(redis_client, ["org.old.app"])
    done = subprocess.run([sys.executable, "-m", "appmem.cli", "migrate", "--json"], capture_output=True, text=True,
                          env=stack_env, cwd=REPO, timeout=180)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["screens"] == {"old_ids": 1, "titles_moved": 0} and report["served"] == {"apps_retired": 1}
    assert generations.current(redis_client, ["org.old.app"]) != before
    assert {r["id"] for r in cypher_rows(empty_graph, "MATCH (s:Screen) RETURN s.id AS id")} == {old, new}
    said = subprocess.run([sys.executable, "-m", "appmem.cli", "migrate"], capture_output=True, text=True,
                          env=stack_env, cwd=REPO, timeout=180)
    assert said.returncode == 0 and "1 screens have ids of an older appmem" in said.stdout, said.stdout


def tiny_state(state_id, rid, package="org.example.app", activity=".Main", text="Go"):
    from appmem.formats.ui import Bounds, UIState, View
    views = [View(0, -1, [1], "android.widget.FrameLayout", package, bounds=Bounds(0, 0, 1080, 1920)),
             View(1, 0, [], "android.widget.Button", package, resource_id=rid, text=text,
                  bounds=Bounds(0, 0, 500, 200), clickable=True)]
    return UIState(package, activity, views, state_id=state_id, observed_at="2026-01-01T00:00:00Z")


def test_outcomes_count_as_failures_on_the_expected_edge(empty_graph):
    from appmem.formats.ui import Action, ActionType
    from appmem.graph.model import Outcome, Step, Trace, reliability
    from appmem.graph.rows import build_rows
    from appmem.graph.screens import screen_of

    a = tiny_state("a", "org.example.app:id/go")
    b = tiny_state("b", "org.example.app:id/next", activity=".Next")
    crash = tiny_state("c", "android:id/aerr_close", package="android", activity=".AppErrorDialog", text="Close app")
    key = "/FrameLayout[]#0/Button[org.example.app:id/go]#0"
    tap = Action(ActionType.TAP, key)
    b_screen = screen_of(b, "org.example.app", "1").id
    trace = Trace("outcomes", "explorer", "org.example.app", "1", "dev", "test", "2026-01-01T00:00:00Z", "",
                  states={"a": a, "b": b, "c": crash},
                  steps=[Step(0, "a", tap, "b"), Step(1, "b", Action(ActionType.BACK), "a"),
                         Step(2, "a", tap, "a", Outcome.NO_EFFECT, expected_screen=b_screen),
                         Step(3, "a", tap, "c")])
    ingest_trace(empty_graph, trace, chunk_size=10)
    edges = {(r["target"], r["action"]): r for r in cypher_rows(
        empty_graph, "MATCH (:Screen)-[t:TRANSITION]->(b:Screen) RETURN b.id AS target, t.action AS action, "
                     "t.successes AS s, t.failures AS f, t.observations AS n")}
    to_b = edges[(b_screen, "tap")]
    assert (to_b["s"], to_b["f"], to_b["n"]) == (1, 1, 2)
    to_crash = edges[(screen_of(crash, "org.example.app", "1").id, "tap")]
    assert (to_crash["s"], to_crash["f"]) == (0, 1)
    assert not any(k[0] == screen_of(a, "org.example.app", "1").id and k[1] == "tap" for k in edges)
    assert reliability(1, 1) == 0.5 and reliability(0, 0) == 0.5 and reliability(3, 0) == 0.8
    assert build_rows(trace, trace.steps, list(trace.states.values())).leads_to  # the ok move still feeds the ETG


def two_button_states(version_text=""):
    from appmem.formats.ui import Bounds, UIState, View
    pkg = "org.example.app"
    views = [View(0, -1, [1, 2], "android.widget.FrameLayout", pkg, bounds=Bounds(0, 0, 1080, 1920)),
             View(1, 0, [], "android.widget.Button", pkg, resource_id=f"{pkg}:id/x", text="Open",
                  bounds=Bounds(0, 0, 500, 200), clickable=True),
             View(2, 0, [], "android.widget.Button", pkg, resource_id=f"{pkg}:id/y", text="Go",
                  bounds=Bounds(0, 300, 500, 500), clickable=True)]
    a = UIState(pkg, ".Main", views, state_id="a" + version_text, observed_at="2026-01-01T00:00:00Z")
    b = tiny_state("b" + version_text, f"{pkg}:id/done", activity=".Done", text="Done")
    return a, b


def test_an_update_keeps_unchanged_screens_marks_a_vanished_edge_stale_and_plans_avoid_it(empty_graph):
    from appmem.agent.appgraph import AppGraph
    from appmem.formats.ui import Action, ActionType
    from appmem.graph.model import Step, Trace
    from appmem.graph.screens import screen_of

    tap_x = Action(ActionType.TAP, "/FrameLayout[]#0/Button[org.example.app:id/x]#0")
    tap_y = Action(ActionType.TAP, "/FrameLayout[]#0/Button[org.example.app:id/y]#0")
    back = Action(ActionType.BACK)
    a, b = two_button_states()
    v1 = Trace("v1", "explorer", "org.example.app", "1.0", "dev", "test", "2026-01-01T00:00:00Z", "",
               {"a": a, "b": b}, [Step(0, "a", tap_x, "b"), Step(1, "b", back, "a"), Step(2, "a", tap_x, "b"),
                                  Step(3, "b", back, "a"), Step(4, "a", tap_y, "b")], version_code=1)
    ingest_trace(empty_graph, v1, chunk_size=10)
    a_id, b_id = screen_of(a, v1.package, "1.0").id, screen_of(b, v1.package, "1.0").id
    tap_x_id = next(e for e in empty_graph.elements(screen_ids=[a_id]) if e["key"] == tap_x.element_key)["id"]
    tap_y_id = next(e for e in empty_graph.elements(screen_ids=[a_id]) if e["key"] == tap_y.element_key)["id"]
    route = AppGraph.load(empty_graph, ["org.example.app"]).route(a_id, b_id)
    assert [h.element_id for h in route] == [tap_x_id]  # tapped twice: the more reliable edge

    a2, b2 = two_button_states("2")  # the same screens, seen by another device in version 2
    v2 = Trace("v2", "explorer", "org.example.app", "2.0", "dev2", "test", "2026-02-01T00:00:00Z", "",
               {"a2": a2, "b2": b2}, [Step(0, "a2", tap_y, "b2"), Step(1, "b2", back, "a2")], version_code=2)
    ingest_trace(empty_graph, v2, chunk_size=10)
    assert screen_of(a2, v2.package, "2.0").id == a_id
    screens = {r["id"]: r["versions"] for r in cypher_rows(
        empty_graph, "MATCH (s:Screen {package: 'org.example.app'}) RETURN s.id AS id, s.versions AS versions")}
    assert screens == {a_id: ["1.0", "2.0"], b_id: ["1.0", "2.0"]}
    edges = {r["element_key"]: r for r in cypher_rows(
        empty_graph, "MATCH (:Screen {id: $a})-[t:TRANSITION]->(:Screen {id: $b}) "
                     "RETURN t.element_key AS element_key, t.stale AS stale, t.versions AS versions", a=a_id, b=b_id)}
    assert edges[tap_x.element_key]["stale"] and edges[tap_x.element_key]["versions"] == ["1.0"]
    assert not edges[tap_y.element_key]["stale"] and edges[tap_y.element_key]["versions"] == ["1.0", "2.0"]
    route = AppGraph.load(empty_graph, ["org.example.app"]).route(a_id, b_id)
    assert [h.element_id for h in route] == [tap_y_id] and not route[0].stale  # the plan avoids the stale edge

    # An import of unknown version that matches version 2's screens attaches to it, under its alias.
    a3, b3 = two_button_states("3")
    imported = Trace("imp", "droidbot", "org.example.app", "sha256:feedbeef", "dev3", "droidbot", "", "",
                     {"a3": a3, "b3": b3}, [Step(0, "a3", tap_y, "b3")])
    ingest_trace(empty_graph, imported, chunk_size=10)
    rows = {r["version"]: r for r in empty_graph.stats("org.example.app")}
    assert set(rows) == {"1.0", "2.0"} and rows["2.0"]["aliases"] == ["sha256:feedbeef"]
    assert (rows["2.0"]["version_code"], rows["1.0"]["stale"]) == (2, 1)


def test_dialogs_sharing_a_layout_but_titled_otherwise_stay_apart(empty_graph):
    from appmem.graph.screens import screen_of

    folder = DROIDBOT / "de.szalkowski.activitylauncher"
    trace = recording_trace(read_recording(folder))
    titles: dict[str, set[str]] = {}
    layouts: dict[str, set[str]] = {}
    for state in trace.states.values():
        title = [v.text for v in state.views if v.resource_id.endswith(":id/alertTitle") and v.text]
        if title:
            screen = screen_of(state, trace.package, trace.app_version).id
            titles.setdefault(screen, set()).update(title)
            layouts.setdefault(str(sorted({(v.class_name, v.resource_id) for v in state.views})), set()).add(title[0])
    assert any(len(t) > 1 for t in layouts.values())  # one layout, several dialogs (Theme, Language...)
    assert titles and all(len(t) == 1 for t in titles.values())  # ... each its own Screen
    ingest_trace(empty_graph, trace, chunk_size=100)
    theme = next(s for s, t in titles.items() if t == {"Theme"})
    options = cypher_rows(empty_graph, "MATCH (:Screen {id: $id})-[:HAS_ELEMENT]->(e:Element) "
                                       "RETURN e.texts AS texts, e.text_counts AS counts", id=theme)
    assert options and all(len(o["texts"]) <= 1 and sum(o["counts"]) >= 1 for o in options if o["texts"])


def test_a_crawl_under_another_profile_merges_with_the_recording(empty_graph, redis_client, settings):
    from appmem.twins.adb_server import TwinServer
    from appmem.twins.device import build_fleet
    from appmem.twins.profiles import Profile
    from appmem.workers.devices import DevicePool, DeviceRecord
    from appmem.workers.jobspec import JobSpec
    from appmem.workers.jobs import WorkerClients, run_job

    folder = DROIDBOT / "anupam.acrylic"
    fleet = build_fleet([folder], 1, profile=Profile.parse("small,dynamic"))
    with TwinServer(fleet) as server:
        DevicePool(redis_client).register(DeviceRecord("twin-0001", "127.0.0.1", server.port))
        clients = WorkerClients(empty_graph, redis_client, settings.risky_words)
        result = run_job(clients, JobSpec(job_id="profile-small", run_id="profile-run", package="anupam.acrylic",
                                          policy="frontier", max_actions=80, chunk_steps=20, lease_ttl_s=30.0,
                                          adb_timeout_s=5.0, device_wait_s=10.0))
    assert result["status"] == "done" and result["states"] > 1
    recording = recording_trace(read_recording(folder))
    ingest_trace(empty_graph, recording, chunk_size=200)
    outside = empty_graph.read("explore_screens_outside", trace_id=result["trace_id"],
                               package=recording.package, reference_id=recording.id)
    assert outside == []


def test_an_import_made_before_any_device_version_folds_into_the_devices_version(empty_graph):
    from appmem.graph.model import Action, ActionType, Step, Trace

    tap_y = Action(ActionType.TAP, "/FrameLayout[]#0/Button[org.example.app:id/y]#0")
    a, b = two_button_states()
    imported = Trace("imp", "droidbot", "org.example.app", "sha256:feedbeef", "dev", "droidbot", "", "",
                     {"a": a, "b": b}, [Step(0, "a", tap_y, "b")])
    ingest_trace(empty_graph, imported, chunk_size=10)
    assert [r["version"] for r in empty_graph.stats("org.example.app")] == ["sha256:feedbeef"]
    a1, b1 = two_button_states("1")  # the same screens, then a device reports its version
    device = Trace("dev", "agent", "org.example.app", "1.0", "pixel", "appmem-run", "2026-03-01T00:00:00Z", "",
                   {"a1": a1, "b1": b1}, [Step(0, "a1", tap_y, "b1")], version_code=1)
    ingest_trace(empty_graph, device, chunk_size=10)
    rows = empty_graph.stats("org.example.app")
    assert [(r["version"], r["aliases"], r["traces"]) for r in rows] == [("1.0", ["sha256:feedbeef"], 2)]
    versions = cypher_rows(empty_graph, "MATCH (s:Screen {package: 'org.example.app'}) RETURN s.versions AS v")
    assert all(r["v"] == ["1.0"] for r in versions)
    # a later import under the alias attaches at once
    again = Trace("imp2", "droidbot", "org.example.app", "sha256:feedbeef", "dev", "droidbot", "", "",
                  {"a": a, "b": b}, [Step(0, "a", tap_y, "b")])
    ingest_trace(empty_graph, again, chunk_size=10)
    assert [r["version"] for r in empty_graph.stats("org.example.app")] == ["1.0"]


def test_a_field_keeps_its_name_not_the_text_the_trace_typed_into_it():
    """An explorer typed "hello" into the "Title" field: the field's text in memory stays "Title", whichever
    state is written last; a text the trace did not type (the app changed it) still replaces the old one."""
    from appmem.formats.ui import Action, ActionType, Bounds, UIState, View
    from appmem.graph.model import Step, Trace
    from appmem.graph.rows import build_rows

    pkg = "org.example.app"

    def form(state_id, text):
        views = [View(0, -1, [1], "android.widget.FrameLayout", pkg, bounds=Bounds(0, 0, 1080, 1920)),
                 View(1, 0, [], "android.widget.EditText", pkg, resource_id=f"{pkg}:id/field", text=text,
                      bounds=Bounds(0, 0, 500, 200), clickable=True, editable=True)]
        return UIState(pkg, ".Edit", views, state_id=state_id, observed_at="2026-01-01T00:00:00Z")

    key = "/FrameLayout[]#0/EditText[org.example.app:id/field]#0"
    for first, second in (("a", "b"), ("b", "a")):  # rows are written in state-id order: both orders
        states = {first: form(first, "Title"), second: form(second, "hello")}
        trace = Trace("typed", "explorer", pkg, "1", "dev", "test", "2026-01-01T00:00:00Z", "", states=states,
                      steps=[Step(0, first, Action(ActionType.INPUT, key, "hello"), second)])
        fields = [r for r in build_rows(trace, trace.steps, list(states.values())).elements if r["key"] == key]
        assert [r["text"] for r in fields] == ["Title"]
    states = {"a": form("a", "Title"), "b": form("b", "Subject")}
    trace = Trace("changed", "explorer", pkg, "1", "dev", "test", "2026-01-01T00:00:00Z", "", states=states,
                  steps=[Step(0, "a", Action(ActionType.INPUT, key, "hello"), "b")])
    assert [r["text"] for r in build_rows(trace, trace.steps, list(states.values())).elements
            if r["key"] == key] == ["Subject"]


def test_the_purges_last_statement_deletes_only_apps_left_with_nothing(store):
    """cypher/purge_orphan_apps.cypher: an App no trace, screen or other node links to (what a purged key
    alone named) goes; an App with its traces stays."""
    store.write("merge_apps", rows=[{"id": "orphan-app-test", "package": "org.example.orphan", "version": "1.0",
                                     "version_code": None}])
    apps = lambda: {r["package"] for r in store.read("serve_app_versions", package=None)}  # noqa: E731
    linked = apps() - {"org.example.orphan"}
    assert "org.example.orphan" in apps()
    assert store.write("purge_orphan_apps")[0]["deleted"] >= 1
    assert apps() == linked
