"""Tenants on the real stack (graph, vectors, Redis, the API on a socket, a Celery ingest worker process, app
twins behind the adb protocol): keys of a tenant, its private layer, what it shares, its purge. Twins are
simulators replaying DroidBot recordings."""
from __future__ import annotations

import json

import adbutils
import numpy as np
import pytest
from lxml import etree

from appmem.agent.crowd import lookalike_rows, wanted_titles
from appmem.agent.service import Service
from appmem.contract.client import ApiClient
from appmem.device.driver import DeviceDriver
from appmem.runtime.runtime import Runtime
from appmem.semantic import layercache
from appmem.semantic.layercache import LayerCache
from tests.api.conftest import ACRYLIC
from tests.api.test_crowd import cli, with_new_button
from tests.graph.test_identity import cypher_rows

INHOUSE = "com.acme.inhouse"


@pytest.fixture(scope="module")
def about_run(twins, acrylic_memory) -> dict:
    """A real run of "tap About" on an acrylic twin (a RunTrace as the runtime reports it)."""
    fleet, twin_server = twins
    twin_server.reset("twin-0001")
    device = adbutils.AdbClient("127.0.0.1", twin_server.port).device("twin-0001")
    return Runtime(DeviceDriver(device, "twin-0001"), acrylic_memory, lambda step: True).run("tap About", ACRYLIC)["run"]


def counts(acrylic_memory) -> dict:
    return acrylic_memory.store.read("crowd_counts")[0]


def tenants_report(acrylic_server: str, keys, runs: dict[str, list[dict]]) -> dict[str, str]:
    """For each tenant of `runs`, in order, a key of its own ("TENANT-ci") that reports the tenant's runs; the
    keys' secrets by tenant."""
    secrets = {}
    for tenant, reported in runs.items():
        secrets[tenant] = keys.create(f"{tenant}-ci", "plan,contribute", 1000, tenant=tenant)[1]
        contribute(acrylic_server, secrets[tenant], reported)
    return secrets


def counts_alone(acrylic_memory, acrylic_server: str, keys, stack_env, tenant: str, runs: list[dict],
                 before: dict) -> dict:
    """The graph's counts with `runs` reported alone, by a key of `tenant`; that tenant then purged, and the
    counts back to `before`."""
    secret = keys.create(f"{tenant}-solo", "plan,contribute", 1000, tenant=tenant)[1]
    contribute(acrylic_server, secret, runs)
    alone = counts(acrylic_memory)
    assert cli(["tenants", "purge", tenant, "--json"], stack_env).returncode == 0
    assert counts(acrylic_memory) == before
    return alone


def contribute(acrylic_server: str, secret: str, runs: list[dict]) -> list[dict]:
    with ApiClient(acrylic_server, secret) as api:
        ids = [api.contribute(run).trace_id for run in runs]
        reports = [api.wait_trace(i, 120).model_dump() for i in ids]
    assert {r["status"] for r in reports} == {"done"}, reports
    return reports


def inhouse_run(run: dict, started: str) -> dict:
    """The run as if of an in-house app no recording holds: every dump and activity names INHOUSE."""
    def moved(xml: str) -> str:
        root = etree.fromstring(xml.encode())
        for node in root.iter("node"):
            node.set("package", INHOUSE)
        return etree.tostring(root, encoding="unicode")

    steps = [{**s, "before_xml": moved(s["before_xml"]), "after_xml": moved(s["after_xml"]),
              "before_activity": (s.get("before_activity") or "").replace(ACRYLIC, INHOUSE),
              "after_activity": (s.get("after_activity") or "").replace(ACRYLIC, INHOUSE)} for s in run["steps"]]
    return {**run, "package": INHOUSE, "task": "tap About in the in-house app", "started": started, "steps": steps}


def new_button_run(run: dict, label: str, started: str) -> dict:
    """A one-step run tapping a button only its dump shows (a shortcut no recording holds)."""
    step = with_new_button(next(s for s in run["steps"] if s["action"] == "tap" and s["element"]["text"] == "About"),
                           label)
    return {**run, "task": f"tap {label}", "steps": [step], "started": started}


EDGE_OF_LABEL = """MATCH (s:Screen)-[:HAS_ELEMENT]->(e:Element)
WHERE e.content_desc = $label OR EXISTS { MATCH (x:Report)-[:OF]->(e) WHERE x.content_desc = $label }
MATCH (s)-[t:TRANSITION {element_id: e.id}]->(:Screen)
RETURN coalesce(t.crowd_only, false) AS crowd_only, coalesce(t.crowd_trusted, false) AS crowd_trusted,
       coalesce(t.contributors, 0) AS contributors, t.crowd_keys AS crowd_keys, t.tenant_counts AS tenant_counts"""


def edge_of(acrylic_memory, label: str) -> dict:
    """The edge that taps the element labelled `label`, as stored (every read statement of cypher/ filters it)."""
    with acrylic_memory.store.driver.session(database=acrylic_memory.store.database) as session:
        found = session.run(EDGE_OF_LABEL, label=label).data()
    assert len(found) == 1, found
    return found[0]


# ---- keys of a tenant; the admin's view -------------------------------------------------------------

def test_a_key_belongs_to_at_most_one_tenant_and_admins_list_and_show_tenants(acrylic_server, keys, stack_env):
    made = cli(["keys", "create", "--name", "acme-ci", "--scopes", "plan,contribute", "--tenant", "acme", "--json"],
               stack_env)
    assert made.returncode == 0, made.stderr
    record = json.loads(made.stdout)
    assert record["tenant"] == "acme" and keys.get(record["id"]).contributor == f"acme/{record['id']}"
    public = json.loads(cli(["keys", "create", "--name", "anyone", "--json"], stack_env).stdout)
    assert public["tenant"] is None and keys.get(public["id"]).contributor == public["id"]
    bad = cli(["keys", "create", "--name", "x", "--tenant", "Acme Corp", "--json"], stack_env)
    assert bad.returncode != 0 and "tenant name" in json.loads(bad.stdout)["detail"]
    admin = cli(["keys", "create", "--name", "x", "--tenant", "acme", "--scopes", "admin", "--json"], stack_env)
    assert admin.returncode != 0 and "admin" in json.loads(admin.stdout)["detail"]  # admin is every tenant's
    listed = json.loads(cli(["tenants", "list", "--json"], stack_env).stdout)
    assert {"tenant": "acme", "keys": 1, "live_keys": 1, "shared": []} in listed
    shown = cli(["tenants", "show", "acme", "--json"], stack_env)
    assert shown.returncode == 0, shown.stderr
    shown = json.loads(shown.stdout)
    assert [k["id"] for k in shown["keys"]] == [record["id"]] and shown["layer"]["traces"] == 0
    unknown = cli(["tenants", "show", "nobody", "--json"], stack_env)
    assert unknown.returncode != 0 and "nobody" in json.loads(unknown.stdout)["detail"]
    # the same through the admin routes
    with ApiClient(acrylic_server, record["key"]) as api:
        assert api.http.get("/v1/tenants").status_code == 403  # a tenant's own key is no admin
    with ApiClient(acrylic_server, keys.create("admin", "admin")[1]) as api:
        assert "acme" in {t["tenant"] for t in api.http.get("/v1/tenants").json()["tenants"]}
        assert api.http.get("/v1/tenants/acme").json()["keys"][0]["id"] == record["id"]
        assert api.http.get("/v1/tenants/nobody").status_code == 404
        assert api.http.get("/v1/tenants/Not%20A%20Name").status_code == 422


# ---- the private layer and its purge ------------------------------------------------------------------

def test_a_tenants_contributions_are_its_layer_and_its_purge_restores_the_graph_counts(
        acrylic_server, acrylic_memory, keys, about_run, stack_env):
    before = counts(acrylic_memory)
    members = [keys.create(f"globex-{n}", "plan,contribute", 1000, tenant="globex") for n in range(3)]
    label = "Globex quarterly"
    for n, (_, secret) in enumerate(members):  # three of its keys agree: still no public voice
        contribute(acrylic_server, secret, [new_button_run(about_run, label, f"2027-05-0{n + 1}T00:00:00Z"),
                                    inhouse_run(about_run, f"2027-05-1{n + 1}T00:00:00Z"),
                                    {**about_run, "started": f"2027-05-2{n + 1}T00:00:00Z"}])
    during = counts(acrylic_memory)
    assert during["traces"] == before["traces"] + 9 and during["screens"] > before["screens"]
    edge = edge_of(acrylic_memory, label)
    assert edge["crowd_only"] and not edge["crowd_trusted"]  # its keys are private voices
    layer = json.loads(cli(["tenants", "show", "globex", "--json"], stack_env).stdout)["layer"]
    assert layer["traces"] == 9 and INHOUSE in layer["apps"] and layer["private_screens"] > 0
    assert layer["private_transitions"] > 0 and layer["private_elements"] > 0
    inhouse = acrylic_memory.store.read("planner_app_screens", packages=[INHOUSE])
    assert inhouse == []  # an app only a tenant reported has no public screen
    purged = cli(["tenants", "purge", "globex", "--json"], stack_env)
    assert purged.returncode == 0, purged.stderr
    report = json.loads(purged.stdout)
    assert sorted(report["keys"]) == sorted(k.id for k, _ in members) and report["traces"] == 9
    assert counts(acrylic_memory) == before
    assert all(keys.get(k.id) is None for k, _ in members)  # its keys are gone
    assert not any(keys.r.exists(f"appmem:contrib:by:{k.id}") for k, _ in members)  # and its parked bodies
    with ApiClient(acrylic_server, members[0][1]) as api:
        assert api.http.get("/v1/apps").status_code == 401
    assert "globex" not in {t["tenant"] for t in json.loads(cli(["tenants", "list", "--json"], stack_env).stdout)}
    # the CLI could not write the vectors (this process owns them): the journals of its keys' purges and of
    # its voice wait, and their keys are gone; the next purge that may write the vectors finishes them
    journals = lambda: cypher_rows(acrylic_memory.store, "MATCH (j:PurgeJournal) WHERE j.contributor "  # noqa: E731
                                                         "STARTS WITH 'globex/' OR j.contributor = 'tenant:globex' "
                                                         "RETURN j.contributor AS c")
    assert report["vectors"].startswith("not touched") and len(journals()) == 4
    bystander = keys.create("after-globex", "contribute", 1000)[0]
    with ApiClient(acrylic_server, keys.create("globex-cleaner", "admin", 1000)[1]) as api:
        answer = api.http.delete(f"/v1/contributors/{bystander.id}").json()
    assert answer["vectors"] == "deleted" and answer["journals_of_removed_keys"] >= 4 and journals() == []


# ---- sharing by choice ------------------------------------------------------------------------------------

def test_a_tenant_shares_as_one_contributor_and_its_purge_withdraws_it(acrylic_server, acrylic_memory, keys, about_run, stack_env):
    before = counts(acrylic_memory)
    label = "Initech report"
    members = [keys.create(f"initech-{n}", "contribute", 1000, tenant="initech")[1] for n in range(3)]
    for n, secret in enumerate(members):
        contribute(acrylic_server, secret, [new_button_run(about_run, label, f"2027-06-0{n + 1}T00:00:00Z"),
                                    inhouse_run(about_run, f"2027-06-1{n + 1}T00:00:00Z")])
    assert not edge_of(acrylic_memory, label)["crowd_trusted"]
    refused = cli(["tenants", "share", "initech", "--app", INHOUSE, "--json"], stack_env)
    assert refused.returncode == 2, refused.stderr
    assert "private" in json.loads(refused.stdout)["detail"]  # an in-house app
    shared = cli(["tenants", "share", "initech", "--json"], stack_env)
    assert shared.returncode == 0, shared.stderr
    report = json.loads(shared.stdout)
    assert report["apps"] == [ACRYLIC] and report["voice"] == "tenant:initech" and report["votes"] >= 1
    admin = keys.create("initech-operator", "admin")[1]
    with ApiClient(acrylic_server, admin) as api:  # again, through the admin route: still one voice
        again = api.http.post("/v1/tenants/initech/share", params={"app": ACRYLIC})
    assert again.status_code == 200 and again.json()["apps"] == [ACRYLIC], again.text
    edge = edge_of(acrylic_memory, label)
    assert edge["contributors"] == 1 and not edge["crowd_trusted"]  # three keys, one voice
    assert acrylic_memory.store.read("planner_app_screens", packages=[INHOUSE]) == []
    publics = [keys.create(f"public-{n}", "contribute", 1000)[1] for n in range(2)]
    for n, secret in enumerate(publics):
        contribute(acrylic_server, secret, [new_button_run(about_run, label, f"2027-06-2{n + 1}T00:00:00Z")])
    edge = edge_of(acrylic_memory, label)
    assert edge["contributors"] == 3 and edge["crowd_trusted"]  # with two public keys: the public quorum
    assert json.loads(cli(["tenants", "show", "initech", "--json"], stack_env).stdout)["shared"].keys() == {
        "*", ACRYLIC}
    with ApiClient(acrylic_server, admin) as api:
        purged = api.http.delete("/v1/tenants/initech")
        assert purged.status_code == 200, purged.text
        assert api.http.get("/v1/tenants/initech").status_code == 404
    assert purged.json()["withdrawn"]["votes"] >= 1 and purged.json()["vectors"] == "deleted"
    edge = edge_of(acrylic_memory, label)
    assert edge["contributors"] == 2 and not edge["crowd_trusted"]  # withdrawn: below the quorum again
    for secret in publics:
        record = keys.check(secret, 1000)[0]
        assert cli(["keys", "purge", record.id, "--json"], stack_env).returncode == 0
    assert counts(acrylic_memory) == before


# ---- reads: the tenant's keys see its layer over the shared memory, every other key nothing of it ------------

def mcp_call(acrylic_server: str, secret: str, tool: str, arguments: dict) -> dict:
    """One MCP tool call over the API's streamable HTTP endpoint (stateless, JSON answers)."""
    import httpx

    rpc = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
    r = httpx.post(f"{acrylic_server}/mcp/", json=rpc, timeout=60, headers={
        "Authorization": f"Bearer {secret}", "Accept": "application/json, text/event-stream"})
    assert r.status_code == 200, r.text
    return r.json()["result"]


def reads(acrylic_server: str, secret: str, label: str, button: str, dump: str, screen_id: str) -> dict:
    """What a key reads, on every read route and MCP tool, of a tenant's new button `label` on a public
    app's screen (whose dump is `button`) and of its in-house app (whose screen `screen_id` its dump `dump` shows)."""
    with ApiClient(acrylic_server, secret) as api:
        plan = api.plan(f"tap {label}", ACRYLIC).model_dump()
        doc = api.http.get(f"/v1/apps/{ACRYLIC}/doc")
        inhouse_doc = api.http.get(f"/v1/apps/{INHOUSE}/doc")
        hints = api.http.post("/v1/hints", json={"task": f"tap {label}", "app": ACRYLIC, "screen_xml": button})
        located = api.http.post("/v1/locate", json={"app": INHOUSE, "screen_xml": dump})
        search = api.http.get("/v1/search", params={"text": label, "app": ACRYLIC, "k": 10})
        everywhere = api.http.get("/v1/search", params={"text": "About", "k": 20})
        apps = api.http.get("/v1/apps").json()["apps"]
        screen = api.http.get(f"/v1/apps/{INHOUSE}/screens/{screen_id}")
        inhouse_map = api.http.get(f"/apps/{INHOUSE}/map.json")
        acrylic_map = api.http.get(f"/apps/{ACRYLIC}/map.json")
    tools = {name: json.dumps(mcp_call(acrylic_server, secret, tool, args).get("structuredContent")) for name, tool, args in (
        ("plan", "plan", {"task": f"tap {label}", "app": ACRYLIC}), ("doc", "doc", {"app": ACRYLIC}),
        ("inhouse_doc", "doc", {"app": INHOUSE}), ("search", "search", {"text": label, "app": ACRYLIC, "k": 10}),
        ("locate", "locate", {"app": INHOUSE, "screen_xml": dump}),
        ("hints", "hints", {"task": f"tap {label}", "app": ACRYLIC, "screen_xml": button}))}
    return {
        "plan": [s.get("layer") for s in plan["steps"] if label in json.dumps(s["element"] or {})],
        "layers": sorted({s.get("layer") for s in plan["steps"]}) if any(label in json.dumps(s["element"] or {})
                                                                           for s in plan["steps"]) else [],
        "doc": label in doc.text, "inhouse_doc": inhouse_doc.status_code == 200 and screen_id in inhouse_doc.text,
        "hints": label in json.dumps(hints.json()["hints"]), "locate": located.status_code == 200 and located.json()["match"] == "exact",
        "search": label in search.text, "search_everywhere": INHOUSE in everywhere.text,
        "apps": INHOUSE in {a["package"] for a in apps}, "screen": screen.status_code == 200,
        "map": inhouse_map.status_code == 200 and screen_id in inhouse_map.text, "acrylic_map": label in acrylic_map.text,
        "mcp": [label in json.dumps(json.loads(tools["plan"])["steps"]), label in tools["doc"], screen_id in tools["inhouse_doc"], label in tools["search"],
                '"exact"' in tools["locate"], label in json.dumps((json.loads(tools["hints"]) or {}).get("hints"))]}


def test_a_tenants_layer_is_read_by_its_keys_alone_on_every_route_and_tool(acrylic_server, acrylic_memory, keys, about_run):
    label = "Umbrella dashboard"
    own = keys.create("umbrella-ci", "plan,contribute", 1000, tenant="umbrella")[1]
    peer = keys.create("umbrella-agent", "plan", 1000, tenant="umbrella")[1]  # a key of the same tenant
    other = keys.create("wayne-agent", "plan", 1000, tenant="wayne")[1]
    public = keys.create("public-agent", "plan", 1000)[1]
    inhouse = inhouse_run(about_run, "2027-07-01T00:00:00Z")
    # its run's task is another than the plan's below: the plan is the planner's over both layers (its own
    # demonstrations are recalled: test_a_tenants_vectors_are_searched_and_recalled_for_its_keys_alone)
    button = {**new_button_run(about_run, label, "2027-07-02T00:00:00Z"), "task": f"check the {label} tile"}
    contribute(acrylic_server, own, [button, inhouse])
    dump = inhouse["steps"][-1]["after_xml"]
    screen_id = acrylic_memory.viewing("umbrella").locate(INHOUSE, dump).screen_id
    args = (label, button["steps"][0]["before_xml"], dump, screen_id)
    seen = reads(acrylic_server, peer, *args)
    assert seen["plan"] == ["tenant"], seen  # at once (no summarize): the tap on its button, from its own edge
    assert seen["layers"] == ["public", "tenant"], seen  # the way there is the shared memory's
    assert all(v for k, v in seen.items() if k not in ("plan", "layers", "mcp", "search_everywhere")), seen
    assert all(seen["mcp"]), seen
    # the tenant's quorum (APPMEM_TENANT_QUORUM): one of its keys reported the app, so a quorum of two reads none
    assert acrylic_memory.store.viewing("umbrella", 1).read("planner_app_screens", packages=[INHOUSE])
    assert acrylic_memory.store.viewing("umbrella", 2).read("planner_app_screens", packages=[INHOUSE]) == []
    for outsider in (other, public):
        unseen = reads(acrylic_server, outsider, *args)
        assert unseen["plan"] == [] and not any(v for k, v in unseen.items() if k not in ("plan", "layers", "mcp")), \
            unseen
        assert not any(unseen["mcp"]), unseen


def mcp_resource(acrylic_server: str, secret: str, uri: str) -> str:
    """One MCP resource read over the API's streamable HTTP endpoint: its text, or "" when refused."""
    import httpx

    rpc = {"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": uri}}
    r = httpx.post(f"{acrylic_server}/mcp/", json=rpc, timeout=60, headers={
        "Authorization": f"Bearer {secret}", "Accept": "application/json, text/event-stream"})
    assert r.status_code == 200, r.text
    return "".join(c.get("text", "") for c in r.json().get("result", {}).get("contents", []))


def vector_reads(acrylic_server: str, secret: str, task: str, first: str, last: str, elsewhere: str) -> dict:
    """What a key reads of a tenant's in-house demonstration `task` (its first and last screens `first`,
    `last`, the dump `elsewhere` of its last screen): recall, the vector searches of tasks, screens and
    elements (of the app and of every app), the route between its screens, a plan from its screen into a
    public app (cross-app), and the MCP tools and resources."""
    with ApiClient(acrylic_server, secret) as api:
        plan = api.http.post("/v1/plan", json={"task": task, "app": INHOUSE})
        tasks = api.http.get("/v1/search", params={"text": task, "kind": "task", "k": 10})
        screens = api.http.get("/v1/search", params={"text": "About", "kind": "screen", "app": INHOUSE, "k": 10})
        every_screen = api.http.get("/v1/search", params={"text": "About", "kind": "screen", "k": 50})
        every_element = api.http.get("/v1/search", params={"text": "About", "k": 50})
        chosen = api.http.post("/v1/plan", json={"task": task})  # no app named: chosen by meaning
        route = api.http.get(f"/apps/{INHOUSE}/route", params={"source": first, "target": last})
        screen_json = api.http.get(f"/apps/{INHOUSE}/screens/{last}.json")
        crossing = api.plan("tap About", ACRYLIC, screen_xml=elsewhere).model_dump()
    tools = {name: json.dumps(mcp_call(acrylic_server, secret, tool, args)) for name, tool, args in (
        ("tasks", "search", {"text": task, "kind": "task", "k": 10}),
        ("screens", "search", {"text": "About", "kind": "screen", "k": 50}),
        ("apps", "apps", {}), ("plan", "plan", {"task": task, "app": INHOUSE}))}
    return {
        "recall": plan.status_code == 200 and (plan.json().get("recalled") or {}).get("description") == task
        and {s["layer"] for s in plan.json()["steps"]} == {"tenant"},  # an in-house app's edges are its layer
        "tasks": task in tasks.text, "screens": screens.status_code == 200 and last in screens.text,
        "every_screen": INHOUSE in every_screen.text, "every_element": INHOUSE in every_element.text,
        "chosen": chosen.status_code == 200 and chosen.json().get("package") == INHOUSE,
        "route": route.status_code == 200 and last in route.text, "screen_json": screen_json.status_code == 200,
        "crossing": bool(crossing["steps"]) and crossing["steps"][0]["screen_id"] == last,  # the way out of it
        "mcp": {name: (task if name in ("tasks", "plan") else INHOUSE) in text for name, text in tools.items()},
        "resources": {kind: INHOUSE in mcp_resource(acrylic_server, secret, f"appmem://apps/{INHOUSE}/{kind}")
                      for kind in ("doc", "map")}}


def cached_under(settings, namespace: str) -> int:
    """How many vectors the embedder's cache keeps under `namespace` (a tenant's: semantic/embedder.py)."""
    import sqlite3

    with sqlite3.connect(settings.home / "embeddings.sqlite") as con:
        return con.execute("SELECT count(*) FROM owners WHERE namespace = ?", (namespace,)).fetchone()[0]


def kept_under(settings, namespace: str) -> int:
    """How many entries of points the cache of tenants' points keeps under `namespace` (semantic/layercache.py)."""
    import sqlite3

    if not (settings.home / layercache.CACHE_FILE).exists():
        return 0
    with sqlite3.connect(settings.home / layercache.CACHE_FILE) as con:
        return con.execute("SELECT count(*) FROM layers WHERE namespace = ?", (namespace,)).fetchone()[0]


def test_a_tenants_vectors_are_searched_and_recalled_for_its_keys_alone(acrylic_server, acrylic_memory, keys, about_run, settings,
                                                                         stack_env):
    task = "tap About in the Hooli intranet app"
    own = keys.create("hooli-ci", "plan,contribute", 1000, tenant="hooli")[1]
    peer = keys.create("hooli-agent", "plan", 1000, tenant="hooli")[1]
    other = keys.create("pied-piper-agent", "plan", 1000, tenant="piedpiper")[1]
    public = keys.create("public-searcher", "plan", 1000)[1]
    run = {**inhouse_run(about_run, "2027-08-01T00:00:00Z"), "task": task}
    contribute(acrylic_server, own, [run])
    view = acrylic_memory.viewing("hooli")
    first = view.locate(INHOUSE, run["steps"][0]["before_xml"]).screen_id
    last_xml = run["steps"][-1]["after_xml"]
    last = view.locate(INHOUSE, last_xml).screen_id
    assert first and last and first != last
    seen = vector_reads(acrylic_server, peer, task, first, last, last_xml)
    missed = [k for k, v in seen.items() if not (all(v.values()) if isinstance(v, dict) else v)]
    assert missed == [], seen  # at once: no summarize
    # the shared collections hold nothing of it: the public's vectors never meet the tenant's words
    assert acrylic_memory.vectors.packages("elements").count(INHOUSE) == 0
    assert not any(task in json.dumps(p) for _, p in acrylic_memory.vectors.points("tasks", acrylic_memory.vectors.packages("tasks")))
    # look-alikes: its in-house app's screens (titled as the public app's: by its keys' titles, which the title index
    # of public titles does not hold) lend the public app's plans in its view alone (agent/crowd.py)
    titles = wanted_titles([s.get("title") or "" for s in acrylic_memory.planner().graph([ACRYLIC]).screens.values()])
    lookalikes = {reader: {r["package"] for r in lookalike_rows(store, titles, [ACRYLIC])}
                  for reader, store in (("own", acrylic_memory.store.viewing("hooli", 1)), ("public", acrylic_memory.store),
                                        ("other", acrylic_memory.store.viewing("piedpiper", 1)))}
    assert INHOUSE in lookalikes["own"] and INHOUSE not in lookalikes["public"] | lookalikes["other"], lookalikes
    for outsider in (other, public):
        unseen = vector_reads(acrylic_server, outsider, task, first, last, last_xml)
        assert not any(v for k, v in unseen.items() if k not in ("mcp", "resources")), unseen
        assert not any(unseen["mcp"].values()) and not any(unseen["resources"].values()), unseen
    # its texts' vectors are cached under its namespace alone (no other reader's lookup meets them), and its
    # purge forgets them
    cache = acrylic_memory.embedder.cache
    assert cached_under(settings, "hooli") > 0 and not cache.get([cache.key(task)]) and cache.get([cache.key(task, "hooli")])
    assert kept_under(settings, "hooli") > 0
    purged = cli(["tenants", "purge", "hooli", "--json"], stack_env)
    assert purged.returncode == 0, purged.stderr
    assert json.loads(purged.stdout)["embeddings"] > 0 and cached_under(settings, "hooli") == 0
    assert json.loads(purged.stdout)["layers"] > 0 and kept_under(settings, "hooli") == 0  # and its kept points
    assert not cache.get([cache.key(task, "hooli")])


def task_backers(acrylic_memory, description: str) -> list[dict]:
    """The demonstrations of `description` as stored: who sent each, under which shared voice, trusted or not."""
    with acrylic_memory.store.driver.session(database=acrylic_memory.store.database) as session:
        return session.run("MATCH (k:Task {description: $d}) RETURN k.contributor AS contributor, k.voice AS voice, "
                           "coalesce(k.crowd_trusted, false) AS trusted ORDER BY contributor", d=description).data()


def test_a_tenant_shares_its_demonstrations_as_one_contributor_scrubbed_and_its_purge_withdraws_them(
        acrylic_server, acrylic_memory, keys, about_run, stack_env):
    before = counts(acrylic_memory)
    task = "tap About and mail jane.doe@initrode.example"
    scrubbed = "tap About and mail <EMAIL>"
    members = [keys.create(f"initrode-{n}", "contribute", 1000, tenant="initrode")[1] for n in range(3)]
    for n, secret in enumerate(members):
        contribute(acrylic_server, secret, [{**about_run, "task": task, "started": f"2027-09-0{n + 1}T00:00:00Z"}])
    stored = task_backers(acrylic_memory, scrubbed)
    assert len(stored) == 3 and not any(r["trusted"] for r in stored), stored  # scrubbed, and private
    assert task_backers(acrylic_memory, task) == []
    shared = cli(["tenants", "share", "initrode", "--app", ACRYLIC, "--json"], stack_env)
    assert shared.returncode == 0, shared.stderr
    assert json.loads(shared.stdout)["tasks"] == 3
    stored = task_backers(acrylic_memory, scrubbed)
    assert {r["voice"] for r in stored} == {"tenant:initrode"} and not any(r["trusted"] for r in stored)
    publics = [keys.create(f"initrode-public-{n}", "contribute", 1000)[1] for n in range(2)]
    for n, secret in enumerate(publics):
        contribute(acrylic_server, secret, [{**about_run, "task": task, "started": f"2027-09-1{n + 1}T00:00:00Z"}])
    assert all(r["trusted"] for r in task_backers(acrylic_memory, scrubbed))  # one voice and two keys: the quorum of 3
    purged = cli(["tenants", "purge", "initrode", "--json"], stack_env)
    assert purged.returncode == 0, purged.stderr
    assert json.loads(purged.stdout)["withdrawn"]["tasks_unshared"] == 3
    left = task_backers(acrylic_memory, scrubbed)
    assert len(left) == 2 and not any(r["trusted"] for r in left), left  # withdrawn: two keys are no quorum
    for secret in publics:
        assert cli(["keys", "purge", keys.check(secret, 1000)[0].id, "--json"], stack_env).returncode == 0
    assert counts(acrylic_memory) == before


def test_a_tenants_contribution_embeds_its_layer_at_ingest_so_its_first_plan_embeds_nothing(
        acrylic_server, acrylic_memory, keys, about_run, settings):
    task = "open the Soylent intranet's about page"
    own = keys.create("soylent-ci", "plan,contribute", 1000, tenant="soylent")[1]
    inhouse = {**inhouse_run(about_run, "2027-10-02T00:00:00Z"), "task": task}
    assert cached_under(settings, "soylent") == 0
    contribute(acrylic_server, own, [inhouse])  # stored, then its layer embedded, by the ingest worker process
    assert cached_under(settings, "soylent") > 0  # before any of its keys read anything
    assert kept_under(settings, "soylent") > 0  # and its points, computed from the tenant's graph of the app
    # a process that opens the cache reads them for the tenant's first plan (its graph is what they were computed
    # from): it summarises nothing, and plans as a view that computes them
    layers = LayerCache.at(settings.home)
    reading = Service(acrylic_memory.store, acrylic_memory.vectors, acrylic_memory.embedder, acrylic_memory.settings,
                      layers=layers).viewing("soylent")
    computing = Service(acrylic_memory.store, acrylic_memory.vectors, acrylic_memory.embedder,
                        acrylic_memory.settings).viewing("soylent")
    planned = reading.plan_afresh("tap About", INHOUSE)  # the planner's, its targets from the element index
    assert planned.recalled is None and planned.alternatives and planned == computing.plan_afresh("tap About", INHOUSE)
    assert layers.found > 0 and layers.stored == 0
    read, computed = (view.planner().index([INHOUSE]) for view in (reading, computing))
    assert read.payloads == computed.payloads and np.array_equal(read.matrix, computed.matrix)
    layers.close()
    # what the tenant's first view of the app embeds (its element index, its own screens and demonstrations, as its
    # plans, searches and recall load them): nothing is left, every text is in the cache under its namespace
    assert acrylic_memory.embed_layer("soylent", [INHOUSE]) == 0
    with ApiClient(acrylic_server, own) as api:  # and its first plan of the app reads its new screens at once
        plan = api.plan(task, INHOUSE).model_dump()
        doc = api.http.get(f"/v1/apps/{INHOUSE}/doc")
    last = acrylic_memory.viewing("soylent").locate(INHOUSE, inhouse["steps"][-1]["after_xml"]).screen_id
    assert plan["steps"] and {s["layer"] for s in plan["steps"]} == {"tenant"}, plan
    assert plan["steps"][-1]["element"]["label"] == "About", plan
    assert doc.status_code == 200 and last in doc.text
    # another tenant's first view embeds its own layer, of which the app holds nothing: nothing of this one's
    assert acrylic_memory.embed_layer("initech-2", [INHOUSE]) == 0 and cached_under(settings, "initech-2") == 0
    # the purge of its key forgets the points kept of its apps (the server's process purges: it may write the vectors)
    with ApiClient(acrylic_server, keys.create("soylent-cleaner", "admin", 1000)[1]) as api:
        answer = api.http.delete(f"/v1/contributors/{keys.check(own, 1000)[0].id}").json()
    assert answer["cached"]["layers"] > 0 and kept_under(settings, "soylent") == 0


def first_button_run(run: dict, label: str, started: str) -> dict:
    """A one-step run tapping a button only its dump shows, beside the run's first tapped control (a place no
    other test puts one: the element, keyed by its structure, is new)."""
    step = with_new_button(next(s for s in run["steps"] if s["action"] == "tap"), label)
    return {**run, "task": f"tap {label}", "steps": [step], "started": started}


def texts_read(acrylic_server: str, secret: str, label: str, screen_id: str) -> dict:
    """Where a key reads `label`: a plan's steps, the app document, the screen, the map, search."""
    with ApiClient(acrylic_server, secret) as api:
        plan = api.plan(f"tap {label}", ACRYLIC).model_dump()
        return {"plan": label in json.dumps(plan["steps"]), "doc": label in api.http.get(f"/v1/apps/{ACRYLIC}/doc").text,
                "screen": label in api.http.get(f"/v1/apps/{ACRYLIC}/screens/{screen_id}").text,
                "map": label in api.http.get(f"/apps/{ACRYLIC}/map.json").text,
                "search": label in api.http.get("/v1/search", params={"text": label, "app": ACRYLIC, "k": 20}).text}


def stored_with(acrylic_memory, label: str) -> list[str]:
    """The ids of the elements that keep `label` anywhere among their properties (texts, variants, locators,
    a layer's texts): what a purge must leave none of."""
    rows = cypher_rows(acrylic_memory.store, "MATCH (e:Element) RETURN e.id AS id, e AS e")
    return [r["id"] for r in rows if label in json.dumps(r["e"], default=str)]


def each_reads(acrylic_server: str, readers: dict[str, str], labels: list[str], screen_id: str) -> dict:
    """For each reader (name: its key), the routes on which it reads each of `labels` (texts_read)."""
    return {name: {label: sorted(k for k, v in texts_read(acrylic_server, secret, label, screen_id).items() if v)
                   for label in labels} for name, secret in readers.items()}


EVERY_ROUTE = ["doc", "map", "plan", "screen", "search"]


def test_two_tenants_controls_at_one_place_read_each_its_own_texts_and_a_purge_leaves_the_other_intact(
        acrylic_server, acrylic_memory, keys, about_run, stack_env):
    """Two tenants each add a control at the same place of a public screen (an element is keyed by its place in
    the view tree, so both report one element): each reads its own control's texts on every route, neither the
    other's, the public neither; a purge of the first takes its texts out of the graph, leaves the second's layer
    as it was, and the graph's counts as if the first had never reported."""
    first, second = "Vandelay imports", "Kramerica pitch"
    before = counts(acrylic_memory)
    runs = [first_button_run(about_run, first, "2027-11-01T00:00:00Z"),
            first_button_run(about_run, second, "2027-11-02T00:00:00Z")]
    only_second = counts_alone(acrylic_memory, acrylic_server, keys, stack_env, "pitt", runs[1:], before)
    own, other = tenants_report(acrylic_server, keys, {"vandelay": runs[:1], "kramerica": runs[1:]}).values()
    public = keys.create("public-reader", "plan", 1000)[1]
    screen_id = acrylic_memory.viewing("vandelay").locate(ACRYLIC, runs[0]["steps"][0]["before_xml"]).screen_id
    assert len(stored_with(acrylic_memory, first)) == 1  # one element, both tenants' layers over it
    assert stored_with(acrylic_memory, first) == stored_with(acrylic_memory, second)
    seen = each_reads(acrylic_server, {"vandelay": own, "kramerica": other, "public": public}, [first, second],
                      screen_id)
    assert seen == {"vandelay": {first: EVERY_ROUTE, second: []}, "kramerica": {first: [], second: EVERY_ROUTE},
                    "public": {first: [], second: []}}, seen
    for tenant in ("vandelay", "kramerica"):  # its own report of the element is its layer's
        assert json.loads(cli(["tenants", "show", tenant, "--json"], stack_env).stdout)["layer"]["reported_elements"] >= 1
    purged = cli(["tenants", "purge", "vandelay", "--json"], stack_env)
    assert purged.returncode == 0, purged.stderr
    assert stored_with(acrylic_memory, first) == [] and len(stored_with(acrylic_memory, second)) == 1
    assert counts(acrylic_memory) == only_second
    seen = each_reads(acrylic_server, {"kramerica": other, "public": public}, [first, second], screen_id)
    assert seen == {"kramerica": {first: [], second: EVERY_ROUTE}, "public": {first: [], second: []}}, seen
    assert cli(["tenants", "purge", "kramerica", "--json"], stack_env).returncode == 0
    assert stored_with(acrylic_memory, second) == [] and counts(acrylic_memory) == before


def test_two_tenants_controls_at_one_place_shared_are_two_voices_over_one_element(
        acrylic_server, acrylic_memory, keys, about_run, stack_env):
    """Two tenants' controls at one place of a public screen, both shared: one element, whose backers are the two
    tenants' voices; with a public key's report of the control they make the public quorum, and the public reads
    the public key's texts while each tenant still reads its own. Withdrawn by a purge, the element falls below
    the quorum again; both purges and the public key's leave the graph's counts as they were."""
    first, second, public_label = "Soprano waste", "Bing lounge", "Public shortcut"
    before = counts(acrylic_memory)
    runs = [first_button_run(about_run, label, f"2028-01-0{n + 1}T00:00:00Z")
            for n, label in enumerate((first, second, public_label))]
    tenants = tenants_report(acrylic_server, keys, {"soprano": runs[:1], "bing": runs[1:2]})
    for tenant in tenants:
        shared = cli(["tenants", "share", tenant, "--app", ACRYLIC, "--json"], stack_env)
        assert shared.returncode == 0 and json.loads(shared.stdout)["elements"] >= 1, shared.stdout + shared.stderr
    [element] = stored_with(acrylic_memory, first)
    assert stored_with(acrylic_memory, second) == [element]
    backers = lambda: cypher_rows(acrylic_memory.store, "MATCH (e:Element {id: $id}) RETURN e.crowd_keys AS keys, "  # noqa: E731
                                  "coalesce(e.crowd_trusted, false) AS trusted", id=element)[0]
    assert {"tenant:soprano", "tenant:bing"} <= set(backers()["keys"]) and not backers()["trusted"]
    publisher = keys.create("soprano-public", "plan,contribute", 1000)
    contribute(acrylic_server, publisher[1], runs[2:])
    assert backers()["trusted"]  # two voices and a public key: the public quorum
    screen_id = acrylic_memory.viewing("soprano").locate(ACRYLIC, runs[0]["steps"][0]["before_xml"]).screen_id
    readers = {**tenants, "public": keys.create("soprano-reader", "plan", 1000)[1]}
    seen = each_reads(acrylic_server, readers, [first, second, public_label], screen_id)
    expected = {"soprano": first, "bing": second, "public": public_label}  # the public's search: once summarised
    for name, of in seen.items():
        assert [label for label, routes in of.items() if routes] == [expected[name]], seen
        assert {"doc", "map", "plan", "screen"} <= set(of[expected[name]]), seen
    assert cli(["tenants", "purge", "soprano", "--json"], stack_env).returncode == 0
    assert not backers()["trusted"] and stored_with(acrylic_memory, first) == []  # one voice and one key
    seen = each_reads(acrylic_server, {"bing": tenants["bing"], "public": readers["public"]}, [second, public_label],
                      screen_id)
    assert seen == {"bing": {second: EVERY_ROUTE, public_label: []}, "public": {second: [], public_label: []}}, seen
    assert cli(["tenants", "purge", "bing", "--json"], stack_env).returncode == 0
    assert cli(["keys", "purge", publisher[0].id, "--json"], stack_env).returncode == 0
    assert counts(acrylic_memory) == before and stored_with(acrylic_memory, public_label) == []


def task_counts(acrylic_memory, task_id: str) -> tuple[int, int]:
    """A stored task's run counts as stored (task_run_counts), whoever may recall it."""
    with acrylic_memory.store.driver.session(database=acrylic_memory.store.database) as session:
        row = session.run("MATCH (k:Task {id: $id}) RETURN coalesce(k.successes, 0) AS s, coalesce(k.failures, 0) AS f",
                          id=task_id).single()
    return row["s"], row["f"]


def test_a_tenant_shares_its_run_outcomes_as_one_contributor_and_its_purge_withdraws_them(
        acrylic_server, acrylic_memory, keys, about_run, stack_env):
    before = counts(acrylic_memory)
    demonstrator = keys.create("wernham-public-demo", "contribute", 1000)
    stored = contribute(acrylic_server, demonstrator[1], [{**about_run, "task": "tap About to read who made it",
                                                           "started": "2027-12-01T00:00:00Z"}])[0]["report"]["task"]
    assert stored and task_counts(acrylic_memory, stored) == (0, 0)
    members = [keys.create(f"wernham-{n}", "contribute", 1000, tenant="wernham")[1] for n in range(3)]
    replay = {**about_run, "recalled_task": stored}
    runs = [{**replay, "started": "2027-12-02T00:00:00Z"}, {**replay, "started": "2027-12-03T00:00:00Z"},
            {**replay, "status": "failed", "started": "2027-12-04T00:00:00Z", "ended": "2099-01-01T00:00:00Z"}]
    for secret, run in zip(members, runs):  # two of its keys' runs succeeded; the third's, the latest, failed
        assert contribute(acrylic_server, secret, [run])[0]["report"]["recalled_task"]["counted"]
    assert task_counts(acrylic_memory, stored) == (0, 0)  # private voices: no count moves
    for _ in range(2):  # shared, and shared again: one contributor, its latest outcome
        shared = cli(["tenants", "share", "wernham", "--app", ACRYLIC, "--json"], stack_env)
        assert shared.returncode == 0 and json.loads(shared.stdout)["runs"] == 1, shared.stdout + shared.stderr
        assert task_counts(acrylic_memory, stored) == (0, 1)
    purged = cli(["tenants", "purge", "wernham", "--json"], stack_env)
    assert purged.returncode == 0, purged.stderr
    assert task_counts(acrylic_memory, stored) == (0, 0)  # withdrawn with its voice
    assert cli(["keys", "purge", demonstrator[0].id, "--json"], stack_env).returncode == 0
    assert counts(acrylic_memory) == before


def exported(stack_env, out, *which: str) -> tuple[int, str]:
    """`appmem export` (Cypher script) of `which`: its exit status and what it wrote."""
    done = cli(["export", *which, "--format", "cypher", "--out", str(out)], stack_env)
    return done.returncode, out.read_text() if out.is_file() else ""


def test_an_export_holds_nothing_that_a_tenants_keys_alone_observed(acrylic_server, acrylic_memory, keys, about_run,
                                                                    stack_env, tmp_path):
    label, public_label = "Pendant payroll", "Pendant overview"
    own = keys.create("pendant-ci", "contribute", 1000, tenant="pendant")[1]
    taps = [s for s in about_run["steps"] if s["action"] == "tap"]
    assert len(taps) >= 3  # a place beside the second tapped control: no other test puts a button there

    def button(name: str, started: str) -> dict:
        return {**about_run, "task": f"tap {name}", "steps": [with_new_button(taps[1], name)], "started": started}

    contribute(acrylic_server, own, [button(label, "2027-12-10T00:00:00Z"),
                                     inhouse_run(about_run, "2027-12-11T00:00:00Z")])
    # the same button, imported as one's own run (what a crawl or an import reports is everyone's), showing another
    # label: the element is public now, with both labels among its text variants
    run = tmp_path / "run.json"
    run.write_text(json.dumps(button(public_label, "2027-12-12T00:00:00Z")))
    assert cli(["ingest", "run", str(run), "--json"], stack_env).returncode == 0
    with acrylic_memory.store.driver.session(database=acrylic_memory.store.database) as session:
        texts = session.run("MATCH (e:Element) WHERE $label IN coalesce(e.texts, []) RETURN e.texts AS texts",
                            label=label).data()
    assert len(texts) == 1 and public_label in texts[0]["texts"], texts
    status, app = exported(stack_env, tmp_path / "app.cypher", "--app", ACRYLIC)
    assert status == 0 and public_label in app and label not in app and "pendant" not in app
    status, every = exported(stack_env, tmp_path / "all.cypher", "--all")
    assert status == 0 and INHOUSE not in every and label not in every and "pendant" not in every
    assert exported(stack_env, tmp_path / "inhouse.cypher", "--app", INHOUSE)[0] != 0  # an in-house app: none
    assert cli(["tenants", "purge", "pendant", "--json"], stack_env).returncode == 0


def test_a_tenants_plans_over_the_public_graph_its_process_holds_are_those_of_its_whole_view(
        acrylic_server, acrylic_memory, keys, about_run):
    """Where the process holds the app's public rows and index (a server preloads them), a tenant's view reads only
    its layer and lays it over them (graph/graphrows.py, ElementIndex.with_rows): its plans are those of a view
    that reads itself whole, as a process that holds nothing of the app does."""
    label = "Initech ledger"
    own = keys.create("initech-ci", "plan,contribute", 1000, tenant="initech")[1]
    # its button below another new one beside About: a place no other test puts one (an element is keyed by its
    # place in the view tree: the plans compared are then this tenant's own, whatever other tests left there)
    beside = new_button_run(about_run, f"{label} header", "2027-11-02T00:00:00Z")
    contribute(acrylic_server, own, [{**beside, "task": f"check the {label} tile",
                                      "steps": [with_new_button(beside["steps"][0], label)]}])
    acrylic_memory.preload([ACRYLIC])
    public = acrylic_memory.planner()
    assert public.loaded_rows((ACRYLIC,)) is not None and public.loaded_index((ACRYLIC,)) is not None
    layered = acrylic_memory.viewing("initech")
    whole = Service(acrylic_memory.store, acrylic_memory.vectors, acrylic_memory.embedder,
                    acrylic_memory.settings).viewing("initech")
    plans = {task: layered.plan_afresh(task, ACRYLIC).model_dump() for task in (f"tap {label}", "tap About")}
    assert plans == {task: whole.plan_afresh(task, ACRYLIC).model_dump() for task in plans}
    assert whole.planner()._public is None or whole.planner()._public().loaded_rows((ACRYLIC,)) is None
    assert {s["layer"] for s in plans[f"tap {label}"]["steps"]} >= {"tenant"}, plans


def titled_run(run: dict, name: str, started: str) -> dict:
    """The in-house run whose last screen shows `name` (content, such as a contact's name) where it showed its title:
    no naming text of the screen, so each such run reports the one screen, titled `name`."""
    root = etree.fromstring(run["steps"][-1]["after_xml"].encode())
    for node in root.iter("node"):
        if node.get("text") == "About":
            node.set("text", name)
    steps = run["steps"][:-1] + [{**run["steps"][-1], "after_xml": etree.tostring(root, encoding="unicode")}]
    return {**run, "steps": steps, "started": started, "task": f"see {name}"}


def titles_read(acrylic_server: str, secret: str, names: list[str], first: str, screen_id: str, menu: str) -> dict:
    """For each route that shows screens' titles, which of `names` a key reads there."""
    with ApiClient(acrylic_server, secret) as api:
        answers = {
            "plan": api.http.post("/v1/plan", json={"task": "tap About", "app": INHOUSE}).text,
            "doc": api.http.get(f"/v1/apps/{INHOUSE}/doc").text,
            "screen": api.http.get(f"/v1/apps/{INHOUSE}/screens/{screen_id}").text,
            "map": api.http.get(f"/apps/{INHOUSE}/map.json").text,
            "map_screen": api.http.get(f"/apps/{INHOUSE}/screens/{screen_id}.json").text,
            "route": api.http.get(f"/apps/{INHOUSE}/route", params={"source": first, "target": screen_id}).text,
            "hints": api.http.post("/v1/hints", json={"task": "tap About", "app": INHOUSE, "screen_xml": menu}).text,
            "search": "".join(api.http.get("/v1/search", params={"text": name, "kind": "screen", "app": INHOUSE,
                                                                 "k": 20}).text for name in names)}
    answers["mcp_doc"] = json.dumps(mcp_call(acrylic_server, secret, "doc", {"app": INHOUSE}).get("structuredContent"))
    return {route: sorted(name for name in names if name in text) for route, text in answers.items()}


def test_two_tenants_titles_of_one_screen_are_each_its_own_and_a_purge_leaves_none_of_the_first(
        acrylic_server, acrylic_memory, keys, about_run, stack_env):
    """A screen is keyed by its structure and naming texts, not its title (the first short text it shows): the
    first tenant's key to report a screen titles it with content (a contact's name); another tenant's key reports
    the same screen with its own. Each reads its own title on every route that shows titles, neither the other's,
    the public neither; the first's purge leaves none of its title stored and the counts as if it never reported."""
    first_name, second_name = "Jane Cooper", "Bob Stone"
    names = [first_name, second_name]
    before = counts(acrylic_memory)
    runs = [titled_run(inhouse_run(about_run, "2028-03-01T00:00:00Z"), first_name, "2028-03-01T00:00:00Z"),
            titled_run(inhouse_run(about_run, "2028-03-02T00:00:00Z"), second_name, "2028-03-02T00:00:00Z")]
    only_second = counts_alone(acrylic_memory, acrylic_server, keys, stack_env, "stonesolo", runs[1:], before)
    own, other = tenants_report(acrylic_server, keys, {"cooper": runs[:1], "stone": runs[1:]}).values()
    public = keys.create("titles-reader", "plan", 1000)[1]
    screen_id = acrylic_memory.viewing("cooper").locate(INHOUSE, runs[0]["steps"][-1]["after_xml"]).screen_id
    assert screen_id == acrylic_memory.viewing("stone").locate(INHOUSE, runs[1]["steps"][-1]["after_xml"]).screen_id
    first = acrylic_memory.viewing("cooper").locate(INHOUSE, runs[0]["steps"][0]["before_xml"]).screen_id
    args = (names, first, screen_id, runs[0]["steps"][-1]["before_xml"])
    seen = {name: titles_read(acrylic_server, secret, *args) for name, secret in
            (("cooper", own), ("stone", other), ("public", public))}
    shown = ["doc", "map", "map_screen", "mcp_doc", "screen"]  # the routes that show the screen's own title
    for tenant, name in (("cooper", first_name), ("stone", second_name)):
        assert {route for route, read in seen[tenant].items() if read} >= set(shown), seen
        assert all(read in ([], [name]) for read in seen[tenant].values()), seen
    assert not any(seen["public"].values()), seen
    assert cli(["tenants", "purge", "cooper", "--json"], stack_env).returncode == 0
    stored = cypher_rows(acrylic_memory.store, "MATCH (n) RETURN n AS n")
    assert not any(first_name in json.dumps(r["n"], default=str) for r in stored)
    assert counts(acrylic_memory) == only_second
    seen = titles_read(acrylic_server, other, *args)
    assert {route for route, read in seen.items() if read} >= set(shown) and \
        all(read in ([], [second_name]) for read in seen.values()), seen
    assert cli(["tenants", "purge", "stone", "--json"], stack_env).returncode == 0
    assert counts(acrylic_memory) == before
