"""The crowd loop on the real stack (graph, vectors, Redis, the API on a socket, a Celery ingest worker
process, app twins behind the adb protocol): runs that always come back, one trace contract,
contributions that cannot poison, a contributor's data that can be removed, hostile bodies.
Twins are simulators replaying DroidBot recordings."""
from __future__ import annotations

import base64
import copy
import io
import json
import re
import subprocess
import sys
import tarfile
import threading
from pathlib import Path

import adbutils
import pytest
from lxml import etree

from appmem.runtime.runtime import Runtime
from appmem.api.app import create_app
from appmem.contract.client import ApiClient, ApiError
from appmem import generations
from appmem.keys import KeyStore
from appmem.stack import Stack
from appmem.formats.ui import stable_id
from appmem.ingest.contributions import MAX_DELIVERIES, PREFIX, Contributions, ingest_contribution
from appmem.semantic.pipeline import summarize
from appmem.semantic.summaries import DeterministicSummarizer
from tests.api.conftest import ACRYLIC, ADFREE, tarball
from tests.conftest import DROIDBOT, REPO, free_port
from tests.graph.test_identity import cypher_rows
from tests.twin_tasks import dump_screen, forged_runs, recorded_tasks, unseen_targets
from tests.llm_server import reply_json, serve
from appmem.workers.devices import open_redis
from appmem.device.driver import DeviceDriver



@pytest.fixture(scope="module")
def memory(acrylic_memory):
    return acrylic_memory


@pytest.fixture(scope="module")
def redis_db(settings):
    return open_redis(Stack(settings).redis_url())


@pytest.fixture(scope="module")
def keys(redis_db):
    return KeyStore(redis_db)


@pytest.fixture(scope="module")
def server(acrylic_server):
    return acrylic_server


def key(keys, scopes: str, name: str = "crowd-test") -> str:
    return keys.create(name, scopes, 1000)[1]


def real_run(twins, memory, task: str, serial: str = "twin-0001") -> dict:
    fleet, server = twins
    server.reset(serial)
    device = adbutils.AdbClient("127.0.0.1", server.port).device(serial)
    return Runtime(DeviceDriver(device, serial), memory, lambda step: True).run(task, ACRYLIC)


def cli(args: list[str], env: dict, timeout: int = 180) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "appmem.cli", *args], capture_output=True, text=True, env=env,
                          cwd=REPO, timeout=timeout)


# ---- 0. what one key sends shows in no other key's counts --------------------------------------------

def test_one_keys_counts_on_a_trusted_edge_show_in_no_read_route_of_another_key(server, twins, memory, keys):
    """One key sends the recorded "tap About" run five times: its raw counts land on the import's edges (its
    votes say how many), yet the map, the screens route, the app document and the apps' counts show another
    key what they showed before (each contributor once, and only at a quorum: graph/votes.py shown_counts;
    its traces, tasks and states are not counted for others). First in this module: later tests' keys
    send the recorded path too, and once a quorum of them voted on an edge each voice counts, as plans
    count it, so a further key's one voice would then show."""
    run = real_run(twins, memory, "tap About")["run"]
    about = next(s for s in run["steps"] if s["action"] == "tap" and s["element"] and s["element"]["text"] == "About")
    screen_id = memory.locate(ACRYLIC, about["before_xml"], None, about["before_activity"]).screen_id
    raw = lambda: cypher_rows(memory.store, "MATCH (:Screen {id: $id})-[t:TRANSITION]->() "  # noqa: E731
                                            "RETURN sum(t.observations) AS n", id=screen_id)[0]["n"]
    reader = key(keys, "plan", "counts-reader")

    def reads() -> tuple:
        with ApiClient(server, reader) as api:
            mapped = api.http.get(f"/apps/{ACRYLIC}/map.json").json()["transitions"]
            listed = [a for a in api.apps() if a["package"] == ACRYLIC]
            return mapped, api.screen(ACRYLIC, screen_id)["exits"], api.doc(ACRYLIC, 50_000), listed

    before, raw_before = reads(), raw()
    assert before[1] and all(isinstance(e["observations"], int) for e in before[1])
    name = "counts-inflater"
    with ApiClient(server, key(keys, "contribute", name)) as api:
        ids = [api.contribute({**run, "started": f"2027-12-1{n}T00:00:00Z"}).trace_id for n in range(5)]
        assert {api.wait_trace(i, 60).model_dump()["status"] for i in ids} == {"done"}
    assert raw() > raw_before  # the key's counts are on the edges
    assert reads() == before
    with ApiClient(server, key(keys, "admin", "counts-purger")) as api:  # later tests count the graph
        assert api.http.delete(f"/v1/contributors/{keys.find(name).id}").status_code == 200


# ---- 1. a run is never lost; one trace contract ---------------------------------------------------

def test_a_refused_contribution_is_reported_kept_in_the_outbox_and_flushed(server, twins, memory, keys,
                                                                         stack_env, tmp_path):
    fleet, twin_server = twins
    app = fleet["twin-0002"].apps[ACRYLIC]
    target = unseen_targets(memory.store, app, 1)[0]
    twin_server.reset("twin-0002")
    fleet["twin-0002"].goto(ACRYLIC, target["start"])
    plan_only = key(keys, "plan")  # the server refuses its trace: 403 on POST /v1/traces
    out = tmp_path / "run.json"
    proc = cli(["run", "--task", target["task"], "--serial", "twin-0002", "--adb-port", str(twin_server.port),
                "--server", server, "--key", plan_only, "--yes", "--json", "--trace-out", str(out)], stack_env)
    assert proc.returncode in (0, 1), proc.stderr
    result = json.loads(proc.stdout)
    assert result["status"] in ("done", "failed", "stopped") and result["steps"] and "replans" in result
    assert result["ended"]["package"] == ACRYLIC and result["trace_id"] is None
    assert result["contribution"].startswith("failed") and "403" in result["contribution"]
    assert json.loads(out.read_text())["format"] == "appmem-run/1"
    home_outbox = Path(stack_env["APPMEM_HOME"]) / "outbox"
    assert len(list(home_outbox.glob("*.json"))) == 1
    contributor = key(keys, "plan,contribute")
    flushed = cli(["contribute", "--flush", "--server", server, "--key", contributor, "--json"], stack_env)
    assert flushed.returncode == 0, flushed.stdout + flushed.stderr
    summary = json.loads(flushed.stdout)
    assert summary["sent"] == 1 and summary["kept"] == 0 and not list(home_outbox.glob("*.json"))
    with ApiClient(server, contributor) as api:
        status = api.wait_trace(summary["traces"][0]["trace_id"], 60).model_dump()
    assert status["status"] == "done", status


def test_a_step_whose_element_is_not_in_its_dump_is_stored_with_a_reason(server, twins, memory, keys):
    run = real_run(twins, memory, "tap About")["run"]
    tapped = next(i for i, s in enumerate(run["steps"]) if s["element"])
    run["steps"][tapped]["element"] = {"text": "no such view", "content_desc": "", "resource_id": "x:id/none",
                                       "class_name": "android.widget.Nothing", "bounds": [1, 2, 3, 4]}
    with ApiClient(server, key(keys, "contribute")) as api:
        status = api.wait_trace(api.contribute({**run, "started": "2026-05-01T00:00:00Z"}).trace_id, 60).model_dump()
    assert status["status"] == "done", status
    assert [u["index"] for u in status["report"]["unmatched_steps"]] == [tapped]
    assert "not in its before_xml dump" in status["report"]["unmatched_steps"][0]["reason"]


def test_every_action_a_plan_names_is_one_a_run_trace_takes(server, twins, memory, keys):
    """A plan may say `stop_app` (DroidBot records it; a replan from another app's screen took it): the
    runtime's trace of that step failed its own model, a traceback that lost the run (found in acceptance)."""
    from typing import get_args

    from appmem.contract.plan import Action
    from appmem.contract.run import RunAction

    assert set(get_args(Action)) <= set(get_args(RunAction))
    run = real_run(twins, memory, "tap About")["run"]
    run["steps"][0] = {**run["steps"][0], "action": "stop_app", "element": None, "outcome": "missed"}
    with ApiClient(server, key(keys, "contribute")) as api:
        status = api.wait_trace(api.contribute({**run, "started": "2026-05-02T00:00:00Z"}).trace_id, 60).model_dump()
    assert status["status"] == "done", status
    assert status["report"]["failed_steps"] >= 1


def test_a_memory_failure_mid_run_still_returns_the_result_and_its_trace(twins, memory):
    class Failing:  # the memory answers at first, then the server goes away
        def __init__(self):
            self.calls = 0

        def plan(self, *a, **k):
            return memory.plan(*a, **k)

        def locate(self, *a, **k):
            self.calls += 1
            if self.calls > 2:
                raise ApiError(0, "ConnectError: connection refused")
            return memory.locate(*a, **k)

    fleet, server = twins
    server.reset("twin-0001")
    device = adbutils.AdbClient("127.0.0.1", server.port).device("twin-0001")
    result = Runtime(DeviceDriver(device, "twin-0001"), Failing(), lambda s: True).run("tap About", ACRYLIC)
    assert result["status"] == "failed" and "connection refused" in result["reason"]
    assert result["run"]["steps"] and result["run"]["format"] == "appmem-run/1"


# ---- 6. hostile contributions ---------------------------------------------------------------------

def pax_bomb() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
        info = tarfile.TarInfo("utg.js")
        info.pax_headers = {"comment": "a" * (64 * 1024 * 1024)}
        tar.addfile(info, io.BytesIO(b""))
    return buffer.getvalue()


def zero_bomb() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        info = tarfile.TarInfo("states/state_1.json")
        info.size = 60 * 1024 * 1024
        tar.addfile(info, io.BytesIO(bytes(info.size)))
    return buffer.getvalue()


@pytest.mark.parametrize("body, problem", [
    (pax_bomb(), "header"), (zero_bomb(), "compression ratio"),
])
def test_hostile_archives_stop_at_their_first_limit_while_read(server, keys, body, problem):
    import tracemalloc

    assert len(body) < 2 * 1024 * 1024
    from appmem.ingest.tarball import clean_archive
    tracemalloc.start()
    with pytest.raises(Exception) as refused:
        clean_archive(body)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    # read as it goes: stopped long before the 64 MiB header or the 60 MiB file is held
    assert problem in str(refused.value) and peak < 16 * 1024 * 1024
    with ApiClient(server, key(keys, "contribute")) as api:
        r = api.http.post("/v1/traces", content=body, headers={"Content-Type": "application/gzip"})
    assert r.status_code == 422 and problem in r.text


def test_a_tarball_is_parked_scrubbed_without_its_screenshots(server, keys, redis_db):
    members = {"app/utg.js": b'var utg = {"app_package": "x", "nodes": [], "edges": []}',
               "app/states/state_1.json": json.dumps({"views": [{"text": "mail me at ann@example.org"}]}).encode(),
               "app/states/screen_1.png": b"\x89PNG secret screenshot"}
    contributor = key(keys, "contribute")
    with ApiClient(server, contributor) as api:
        r = api.http.post("/v1/traces", content=tarball(members), headers={"Content-Type": "application/gzip"})
        assert r.status_code == 202
        cid = r.json()["trace_id"]
        parked = redis_db.get(PREFIX + cid + ":body")
        final = api.wait_trace(cid, 60).model_dump()
    assert final["status"] in ("done", "failed") and final["status"] != "pending"
    if parked is not None:  # the worker may already have taken it
        with tarfile.open(fileobj=io.BytesIO(base64.b64decode(parked)), mode="r:gz") as tar:
            names = tar.getnames()
            state = tar.extractfile("app/states/state_1.json").read().decode()
        assert "app/states/screen_1.png" not in names and "ann@example.org" not in state and "<EMAIL>" in state


def test_a_trace_must_show_its_app_and_name_its_version_plainly(server, twins, memory, keys):
    """A trace of an app memory does not hold, none of whose dumps shows it (a forged name, or no step at
    all), would add an app that every key sees: refused with a 422 naming why, as a version that is free
    text (an address, markup: versions are shown to other keys as claims), and an archive with no states."""
    run = real_run(twins, memory, "tap About")["run"]
    with ApiClient(server, key(keys, "contribute")) as api:
        post = lambda body: api.http.post("/v1/traces", json=body)  # noqa: E731
        for forged in ({**run, "package": "com.nonexistent.app"}, {**run, "package": "com.nonexistent.app", "steps": []}):
            r = post(forged)
            assert r.status_code == 422 and "memory holds no such app" in r.text, r.text
        for version in ("ann@example.org", "<script>alert(1)</script>", "1.0\n"):
            r = post({**run, "app_version": version})
            assert r.status_code == 422 and "app_version" in r.text, r.text
        accepted = post({**run, "app_version": "1.0-beta+45 (F-Droid)"})
        assert accepted.status_code == 202
        assert api.wait_trace(accepted.json()["trace_id"], 60).model_dump()["status"] == "done"
        r = api.http.post("/v1/traces", content=tarball({"app/utg.js": b'var utg = {"nodes": [], "edges": []}'}),
                          headers={"Content-Type": "application/gzip"})
        assert r.status_code == 422 and "no states/" in r.text, r.text


def test_a_contributions_status_is_its_keys_own(server, twins, memory, keys):
    run = real_run(twins, memory, "tap About")["run"]
    with ApiClient(server, key(keys, "contribute")) as api:
        cid = api.contribute({**run, "started": "2026-10-01T00:00:00Z"}).trace_id
        assert api.wait_trace(cid, 60).model_dump()["status"] == "done"
    with ApiClient(server, key(keys, "contribute")) as other:
        r = other.http.get(f"/v1/traces/{cid}")
        assert r.status_code == 404 and "of this key" in r.text
    with ApiClient(server, key(keys, "admin")) as admin:
        assert admin.http.get(f"/v1/traces/{cid}").json()["status"] == "done"


def test_bad_bodies_are_422_never_500(server, keys):
    deep = "[" * 100_000 + "]" * 100_000
    with ApiClient(server, key(keys, "contribute")) as api:
        for body, ctype in ((deep.encode(), "application/json"), (b"\xff\xfe", "application/json"),
                            (b"\x1f\x8b" + b"\x00" * 50, "application/gzip")):
            r = api.http.post("/v1/traces", content=body, headers={"Content-Type": ctype})
            assert r.status_code == 422, (r.status_code, r.text[:200])


def test_the_worker_fails_bad_parked_bodies_and_revoked_keys_and_holds_redeliveries_with_a_reason(
        store, redis_db, keys, settings):
    board = Contributions(redis_db)
    never = lambda key_id: pytest.fail(f"purged {key_id}: no key here is revoked mid-ingest")  # noqa: E731
    live = keys.create("worker-test", "contribute")[0]
    deep = board.create("run", live.id, ("[" * 50_000 + "]" * 50_000).encode())
    assert "unreadable" in ingest_contribution(store, redis_db, deep, never)["reason"] or \
        board.status(deep)["status"] == "failed"
    assert board.status(deep)["status"] == "failed" and board.status(deep)["reason"]
    tar = board.create("droidbot", live.id, b"\x1f\x8b garbage")
    assert ingest_contribution(store, redis_db, tar, never)["status"] == "failed"
    again = board.create("run", live.id, b"{}")
    redis_db.hset(PREFIX + again, "deliveries", MAX_DELIVERIES)
    assert ingest_contribution(store, redis_db, again, never)["status"] == "dead"  # held with its body
    assert "deliveries" in board.status(again)["reason"] and redis_db.exists(PREFIX + again + ":body")
    revoked = keys.create("revoked-test", "contribute")[0]
    queued = board.create("run", revoked.id, b"{}")
    keys.revoke(revoked.id)
    assert "revoked" in ingest_contribution(store, redis_db, queued, never)["reason"]
    assert all(board.status(c)["status"] == "failed" for c in (deep, tar, queued))
    assert board.pending(live.id) == 0
    assert board.finish(again, reason="a dead letter the operator gave up on") and board.status(again)["status"] == "failed"
    assert not redis_db.exists(PREFIX + again + ":body")


def in_one_window(period: int, send):
    """`send()`'s answers, from a try that began and ended in one quota window of `period` seconds (a try
    across a boundary counts in two windows: tried again, `send` taking a fresh key)."""
    import time

    for _ in range(3):
        window = int(time.time()) // period
        answers = send()
        if int(time.time()) // period == window:
            return answers
    pytest.fail(f"three tries each crossed a {period} s quota window")


def test_per_key_quotas_answer_429(settings, memory, keys):
    from dataclasses import replace

    from fastapi.testclient import TestClient

    def three(limits):
        contributor = key(keys, "contribute")
        with TestClient(create_app(replace(settings, contrib_pending=1000, **limits), memory),
                        raise_server_exceptions=False) as client:
            return [client.post("/v1/traces", json={"format": "appmem-run/1"},
                                headers={"Authorization": f"Bearer {contributor}"}) for _ in range(3)]

    codes = [r.status_code for r in in_one_window(60, lambda: three({"contrib_per_minute": 2}))]
    assert codes == [422, 422, 429]
    answers = in_one_window(86400, lambda: three({"contrib_per_day": 2}))
    assert [r.status_code for r in answers] == [422, 422, 429] and "today" in answers[-1].text
    assert int(answers[-1].headers["Retry-After"]) > 0
    pending = replace(settings, contrib_pending=0)
    with TestClient(create_app(pending, memory), raise_server_exceptions=False) as client:
        r = client.post("/v1/traces", json={}, headers={"Authorization": f"Bearer {key(keys, 'contribute')}"})
    assert r.status_code == 429 and "waiting" in r.text and r.headers["Retry-After"]


# ---- 4. trust ---------------------------------------------------------------------------------------

def plan_shape(plan: dict) -> list:
    return [plan["route"]] + [((s["element"] or {}).get("id"), s["screen_id"], s["to_screen"]) for s in plan["steps"]]


def with_new_button(step: dict, label: str) -> dict:
    """The step re-written to tap a view only its dump shows: a copy of the layout around the tapped
    label, described as `label`, its texts cleared and drawn a little lower (views of classes the screen
    already shows, naming nothing, so the screen keeps its signature: graph/screens.py)."""
    root = etree.fromstring(step["before_xml"].encode())
    left, top, right, bottom = step["element"]["bounds"]
    row = [n for n in root.iter("node") if n.get("bounds") == f"[{left},{top}][{right},{bottom}]"][-1].getparent()
    twin = copy.deepcopy(row)
    for node in twin.iter("node"):
        box = [int(v) for v in re.findall(r"\d+", node.get("bounds"))]
        node.set("bounds", f"[{box[0]},{box[1] + 10}][{box[2]},{box[3] + 10}]")
        node.set("text", "")
        node.set("content-desc", "")
    twin.set("content-desc", label)
    row.addnext(twin)
    box = [int(v) for v in re.findall(r"\d+", twin.get("bounds"))]
    element = {"text": "", "content_desc": label, "resource_id": twin.get("resource-id"),
               "class_name": twin.get("class"), "bounds": box}
    return {**step, "index": 0, "element": element, "before_xml": etree.tostring(root, encoding="unicode")}


def with_new_screen(xml: str, words: str) -> str:
    """The dump with one more view, of a resource id no recording holds, showing `words`: a screen no
    recording holds (its signature is new, graph/screens.py)."""
    root = etree.fromstring(xml.encode())
    node = next(n for n in root.iter("node") if n.get("package") == ACRYLIC)
    panel = etree.SubElement(node, "node", {k: v for k, v in node.attrib.items() if k not in ("text", "content-desc")})
    panel.set("resource-id", f"{ACRYLIC}:id/forged_panel")
    panel.set("class", "android.widget.TextView")
    panel.set("text", words)
    return etree.tostring(root, encoding="unicode")


def what_another_key_reads(api, words: list[str], screen_id: str, forged_screen: str) -> dict[str, bool]:
    """For each read route, whether any of `words` (or the forged screen's id) is in what it answers."""
    def shows(answer) -> bool:
        text = json.dumps(answer)
        return any(w in text for w in words) or forged_screen in text

    doc = api.doc(ACRYLIC, 50_000)
    mapped = api.http.get(f"/apps/{ACRYLIC}/map.json")
    forged_page = api.http.get(f"/v1/apps/{ACRYLIC}/screens/{forged_screen}")
    return {"doc": shows(doc), "map": shows(mapped.json()),
            "screen": shows(api.screen(ACRYLIC, screen_id)) or forged_page.status_code != 404,
            "search": any(shows(api.search(w, kind, ACRYLIC, 20)) for w in words for kind in ("element", "screen"))}


def test_one_keys_screens_and_labels_reach_no_read_route_of_another_key_until_a_quorum(
        server, twins, memory, keys, redis_db, settings):
    """One key's run that taps a control it added to a known screen (labelled as it likes) into a screen no
    recording holds: absent from the app document, the map, the screens route and search for
    another key; present once a quorum of keys reports it; absent again when a purge takes the quorum away
    (then only search's check against the graph holds the points still in the vectors back)."""
    run = real_run(twins, memory, "tap About")["run"]
    about = next(s for s in run["steps"] if s["action"] == "tap" and s["element"] and s["element"]["text"] == "About")
    step = with_new_button(about, "Quokka lantern")
    step["after_xml"] = with_new_screen(step["after_xml"], "Wombat jamboree")
    words = ["Quokka", "Wombat"]
    screen_id = memory.locate(ACRYLIC, about["before_xml"], None, about["before_activity"]).screen_id
    forged_screen = dump_screen(step["after_xml"], step["after_activity"], ACRYLIC, run["app_version"])
    assert memory.locate(ACRYLIC, step["before_xml"], None, step["before_activity"]).screen_id == screen_id
    forged = {**run, "task": "tap Quokka lantern", "steps": [step]}
    backers = [keys.create(f"forger-{n}", "contribute", 1000) for n in range(3)]

    def contribute(n: int) -> None:
        with ApiClient(server, backers[n][1]) as api:
            assert api.wait_trace(api.contribute({**forged, "started": f"2027-05-0{n + 1}T00:00:00Z"}).trace_id,
                                  60).model_dump()["status"] == "done"
        summarize(memory.store, memory.vectors, memory.embedder, DeterministicSummarizer(settings.risky_words),
                  [ACRYLIC])
        generations.bump(redis_db, [ACRYLIC])

    reader = key(keys, "plan", "reader")
    contribute(0)
    held = cypher_rows(memory.store, "MATCH (s:Screen {id: $id}) RETURN s.crowd_only AS crowd_only", id=forged_screen)
    assert held == [{"crowd_only": True}]  # stored, as one key's
    with ApiClient(server, reader) as api:
        assert what_another_key_reads(api, words, screen_id, forged_screen) == dict.fromkeys(
            ("doc", "map", "screen", "search"), False)
    contribute(1)
    contribute(2)  # three distinct keys: a quorum (APPMEM_TRUST_QUORUM)
    with ApiClient(server, reader) as api:
        assert what_another_key_reads(api, words, screen_id, forged_screen) == dict.fromkeys(
            ("doc", "map", "screen", "search"), True)
    admin = key(keys, "admin", "purger")
    with ApiClient(server, admin) as api:
        assert api.http.delete(f"/v1/contributors/{backers[0][0].id}").status_code == 200
    with ApiClient(server, reader) as api:
        assert what_another_key_reads(api, words, screen_id, forged_screen) == dict.fromkeys(
            ("doc", "map", "screen", "search"), False)
    with ApiClient(server, admin) as api:  # what the other two keys sent goes too: later tests count the graph
        for backer, _ in backers[1:]:
            assert api.http.delete(f"/v1/contributors/{backer.id}").status_code == 200


class Stopped(Exception):
    """A purge stopped between two of its steps (as a process killed there would stop it)."""


def stop_after(point: str):
    """A purge's `after_step` that stops it once step `point` committed."""
    def after(step: str) -> None:
        if step == point:
            raise Stopped(step)
    return after


PURGE_STEPS = ("journal", "votes", "follows", "traces", "tasks", "texts", "leads_to", "versions", "voices",
               "unbacked")


def backed_new_screen(server, twins, memory, keys, redis_db, settings, prefix: str, names: tuple[str, str],
                      month: int):
    """Three new keys report a new button (`names[0]`) on About leading to a new screen (`names[1]`), which is
    summarised and embedded; the last two keys are purged as the ingest worker purges (the vectors are not its
    to write). The keys, the new screen's id, and readers of the keys' open purge journals and of the app's
    embedded screens."""
    from appmem.ingest.purge import purge_contributor

    run = real_run(twins, memory, "tap About")["run"]
    about = next(s for s in run["steps"] if s["action"] == "tap" and s["element"] and s["element"]["text"] == "About")
    step = with_new_button(about, names[0])
    step["after_xml"] = with_new_screen(step["after_xml"], names[1])
    forged_screen = dump_screen(step["after_xml"], step["after_activity"], ACRYLIC, run["app_version"])
    backers = [keys.create(f"{prefix}-{n}", "contribute", 1000) for n in range(3)]
    for n, (_, secret) in enumerate(backers):
        with ApiClient(server, secret) as api:
            body = {**run, "task": f"tap {names[0]}", "steps": [step], "started": f"2027-{month}-0{n + 1}T00:00:00Z"}
            assert api.wait_trace(api.contribute(body).trace_id, 60).model_dump()["status"] == "done"
    summarize(memory.store, memory.vectors, memory.embedder, DeterministicSummarizer(settings.risky_words), [ACRYLIC])
    journals = lambda: cypher_rows(memory.store, "MATCH (j:PurgeJournal) WHERE j.contributor IN $ids "  # noqa: E731
                                                 "RETURN j.contributor AS c", ids=[r.contributor for r, _ in backers])
    points = lambda: {p["screen_id"] for _, p in memory.vectors.points("screens", [ACRYLIC])}  # noqa: E731
    assert forged_screen in points()
    for record, _ in backers[1:]:
        assert purge_contributor(memory.store, redis_db, record.id, settings.trust_quorum)["vectors"].startswith(
            "not touched")
    return backers, forged_screen, journals, points


def test_a_purge_deletes_the_vectors_of_what_it_deleted_from_its_journal_after_a_stop(
        server, twins, memory, keys, redis_db, settings):
    """A screen (and a control leading to it) that three keys reported, summarised and embedded; two keys
    purged by a process that may not write the vectors (the ingest worker), the third purged and stopped
    right after the screen was deleted: its points are still in the vectors, found by nothing in the graph.
    Run again, the purge deletes them from its journal, and the journals go once purges with the vectors
    ran; the graph counts are those before. (Before the forged shortcuts' test: a quorum backs one of those,
    and "tap About" takes it from then on.)"""
    from appmem.ingest.purge import purge_contributor

    counts = lambda: memory.store.read("crowd_counts")[0]  # noqa: E731
    before = counts()
    backers, forged_screen, journals, points = backed_new_screen(
        server, twins, memory, keys, redis_db, settings, "embedded", ("Platypus quiver", "Echidna carnival"), 10)
    assert forged_screen in points()
    last = backers[0][0]
    with pytest.raises(Stopped):
        purge_contributor(memory.store, redis_db, last.id, settings.trust_quorum, memory.vectors,
                          after_step=stop_after("unbacked"))
    assert not cypher_rows(memory.store, "MATCH (s:Screen {id: $id}) RETURN s.id AS id", id=forged_screen)
    assert forged_screen in points()  # deleted from the graph, its points left: what a stop here leaves
    with ApiClient(server, key(keys, "admin", "journal-purger")) as api:
        for record, _ in backers:
            assert api.http.delete(f"/v1/contributors/{record.id}").json()["vectors"] == "deleted"
    assert forged_screen not in points()
    assert journals() == [] and counts() == before


def test_a_purge_that_finds_the_vector_store_down_keeps_its_journal_and_the_next_run_deletes_the_points(
        server, twins, memory, keys, redis_db, settings, stack_env):
    """Three keys back a screen, summarised and embedded; two are purged as the ingest worker purges (the
    vectors not its to write), the third by `appmem keys purge` configured with a vector store that does not
    answer (QDRANT_URL on a port nobody listens on): the graph is purged, the vectors reported pending, the
    screen's points still there and the journal kept. The next purge of the key (the API, which owns the
    vectors) deletes them from the journal: the screen is in the graph no more, so nothing else names it."""
    counts = lambda: memory.store.read("crowd_counts")[0]  # noqa: E731
    before = counts()
    backers, forged_screen, journals, points = backed_new_screen(
        server, twins, memory, keys, redis_db, settings, "unreachable", ("Wombat regatta", "Numbat lantern"), 12)
    last = backers[0][0]
    down = {**stack_env, "QDRANT_URL": f"http://127.0.0.1:{free_port()}"}
    purged = cli(["keys", "purge", last.id, "--json"], down)
    assert purged.returncode == 0, purged.stderr
    report = json.loads(purged.stdout)
    assert report["vectors"].startswith("pending") and "did not answer" in report["vectors"], report["vectors"]
    assert counts() == before  # the graph's steps are done
    assert not cypher_rows(memory.store, "MATCH (s:Screen {id: $id}) RETURN s.id AS id", id=forged_screen)
    assert forged_screen in points() and last.contributor in {j["c"] for j in journals()}
    cache = memory.embedder.cache
    forged_texts = {cache.key(p["text"]) for kind in ("elements", "screens")  # what was embedded of its words
                    for _, p in memory.vectors.points(kind, [ACRYLIC]) if p.get("screen_id") == forged_screen}
    assert forged_texts and set(cache.get(list(forged_texts))) == forged_texts
    with ApiClient(server, key(keys, "admin", "unreachable-purger")) as api:
        answers = [api.http.delete(f"/v1/contributors/{record.id}").json() for record, _ in backers]
    assert [a["vectors"] for a in answers] == ["deleted"] * 3
    assert answers[0]["cached"]["embeddings"] > 0 and cache.get(list(forged_texts)) == {}  # the cache forgot them
    assert forged_screen not in points()
    assert journals() == [] and counts() == before


def another_tap(step: dict) -> dict:
    """The step re-written to tap another clickable view of its dump, as the dump shows it: another way."""
    root = etree.fromstring(step["before_xml"].encode())
    node = next(n for n in root.iter("node") if n.get("clickable") == "true" and n.get("package") == ACRYLIC
                and [int(v) for v in re.findall(r"-?\d+", n.get("bounds"))] != step["element"]["bounds"])
    return {**step, "element": {"text": node.get("text") or "", "content_desc": node.get("content-desc") or "",
                                "resource_id": node.get("resource-id") or "", "class_name": node.get("class"),
                                "bounds": [int(v) for v in re.findall(r"-?\d+", node.get("bounds"))]}}


def test_a_demonstration_is_recalled_once_a_quorum_sent_the_same_steps_not_just_as_many(
        server, twins, memory, keys):
    """Two keys' runs of a task and a third key's different run of it in as many steps: three keys sent the
    task in that many steps, yet the third way is not recallable (nor the first, two keys); a third key
    sending the first way makes it recallable, the other way still not."""
    # a task no other test's key sent: the quorum counts this test's keys alone
    run = {**real_run(twins, memory, "tap About")["run"], "task": "open the About dialog of the painting app"}
    tapped = max(i for i, s in enumerate(run["steps"]) if s["action"] == "tap" and s["element"])
    other = {**run, "steps": [another_tap(s) if i == tapped else s for i, s in enumerate(run["steps"])]}
    assert len(other["steps"]) == len(run["steps"]) and other["steps"][tapped] != run["steps"][tapped]
    senders = [keys.create(f"demonstrator-{n}", "contribute", 1000) for n in range(4)]

    def send(n: int, body: dict) -> str:
        with ApiClient(server, senders[n][1]) as api:
            status = api.wait_trace(api.contribute({**body, "started": f"2027-06-0{n + 1}T00:00:00Z"}).trace_id,
                                    60).model_dump()
        assert status["status"] == "done" and status["report"]["task"], status
        return status["report"]["task"]

    recallable = lambda ids: {r["id"] for r in memory.store.read("recall_tasks", ids=ids)}  # noqa: E731
    honest = [send(0, run), send(1, run)]
    forged = send(2, other)
    assert recallable(honest + [forged]) == set()  # three keys, as many steps: no quorum on either way
    honest.append(send(3, run))
    assert recallable(honest + [forged]) == set(honest)
    with ApiClient(server, key(keys, "admin", "demo-purger")) as api:  # later tests count the graph
        for sender, _ in senders:
            assert api.http.delete(f"/v1/contributors/{sender.id}").status_code == 200


def test_one_keys_look_alike_package_is_not_listed_and_leaves_short_names_alone_until_a_quorum(
        server, twins, memory, keys):
    """One key's runs of `com.x.acrylic` (the painting app's dumps under that package): not in any key's
    apps, and `acrylic` still names the painting app (doc, map, search); once a quorum of keys reports it,
    it is listed and `acrylic` names two apps (a 422 naming them); a purge of its reporters undoes both."""
    squat = "com.x.acrylic"
    run = real_run(twins, memory, "tap About")["run"]
    moved = lambda xml: xml.replace(f'package="{ACRYLIC}"', f'package="{squat}"')  # noqa: E731
    forged = {**run, "package": squat, "steps": [{**s, "before_xml": moved(s["before_xml"]),
                                                  "after_xml": moved(s["after_xml"])} for s in run["steps"]]}
    squatters = [keys.create(f"squatter-{n}", "contribute", 1000) for n in range(3)]

    def report(n: int) -> None:
        with ApiClient(server, squatters[n][1]) as api:
            assert api.wait_trace(api.contribute({**forged, "started": f"2027-07-0{n + 1}T00:00:00Z"}).trace_id,
                                  60).model_dump()["status"] == "done"
        memory.forget()  # the server's list of apps is re-read at once (it is kept APPS_CACHE_S)

    def reads(api) -> tuple[bool, list[int]]:
        listed = squat in {a["package"] for a in api.apps()}
        return listed, [api.http.get("/v1/apps/acrylic/doc").status_code,
                        api.http.get("/apps/acrylic/map.json").status_code,
                        api.http.get("/v1/search", params={"text": "About", "app": "acrylic"}).status_code]

    reader = key(keys, "plan", "squat-reader")
    report(0)
    with ApiClient(server, reader) as api:
        assert reads(api) == (False, [200, 200, 200])
        assert api.doc("acrylic")["package"] == ACRYLIC
    report(1)
    report(2)
    with ApiClient(server, reader) as api:
        listed, codes = reads(api)
        assert listed and codes[0] == 422 and codes[1] == 422, codes  # a quorum reports it: two apps now
        assert squat in api.http.get("/v1/apps/acrylic/doc").text
    with ApiClient(server, key(keys, "admin", "squat-purger")) as api:
        for squatter, _ in squatters:
            assert api.http.delete(f"/v1/contributors/{squatter.id}").status_code == 200
    memory.forget()
    with ApiClient(server, reader) as api:
        assert reads(api) == (False, [200, 200, 200])


def test_one_keys_forged_traces_change_no_plan_until_a_quorum_of_keys_backs_them(
        server, twins, memory, keys, redis_db, settings):
    fleet, _ = twins
    tasks = [t["task"] for t in recorded_tasks(memory.store, ACRYLIC, 6)]
    before = {t: memory.plan(t, ACRYLIC).model_dump() for t in tasks}
    # the shortcuts and claimed failures, twice each: within the key's 30 contributions a minute (the re-sent
    # screens have their own test, test_one_keys_dump_of_a_known_screen_does_not_move_where_agents_are_located)
    forged = [run for i, (t, plan) in enumerate(before.items())
              for run in forged_runs(fleet["twin-0001"], plan, t, f"2026-06-{i + 1:02d}T00:00:00Z", resent=False)]
    assert any(r["status"] == "done" and len(r["steps"]) == 1 for r in forged)
    attacker = key(keys, "contribute", "attacker")
    with ApiClient(server, attacker) as api:
        ids = [api.contribute({**r, "started": r["started"].replace("06", f"0{n + 6}", 1)}).trace_id
               for n in range(2) for r in forged]
        reports = [api.wait_trace(i, 120).model_dump() for i in ids]
        assert {r["status"] for r in reports} == {"done"}
    after = {t: memory.plan(t, ACRYLIC).model_dump() for t in tasks}
    assert [plan_shape(before[t]) for t in tasks] == [plan_shape(after[t]) for t in tasks]
    # nor after `appmem summarize`: its edges reach neither the summaries nor the element index
    # (`leads_to`), and its demonstrations are not in the tasks index, where copies of one task would
    # fill recall's nearest candidates
    summarize(memory.store, memory.vectors, memory.embedder, DeterministicSummarizer(settings.risky_words), [ACRYLIC])
    generations.bump(redis_db, [ACRYLIC])
    assert [plan_shape(before[t]) for t in tasks] == [plan_shape(memory.plan(t, ACRYLIC).model_dump()) for t in tasks]
    edges = memory.store.read("planner_app_transitions", packages=[ACRYLIC])
    shortcuts = {(e["source"], e["target"]) for e in edges if e["crowd_only"]}
    leads = {(p["screen_id"], s) for _, p in memory.vectors.points("elements", [ACRYLIC]) for s in p["leads_to"]}
    assert shortcuts and not shortcuts & leads
    demos = {r["report"]["task"] for r in reports if r["report"]["task"]}
    assert demos and not demos & set(memory.vectors.values("tasks", "embed_hash", [ACRYLIC]))
    # the same shortcut from two more keys: three distinct contributors, and plans may use it
    shortcut = next(r for r in forged if r["status"] == "done")
    for n in range(2):
        with ApiClient(server, key(keys, "contribute", f"witness-{n}")) as api:
            assert api.wait_trace(api.contribute({**shortcut, "started": f"2026-09-0{n + 1}T00:00:00Z"}).trace_id,
                                  60).model_dump()["status"] == "done"
    edge = memory.store.read("planner_app_transitions", packages=[ACRYLIC])
    assert any(e["crowd_only"] and e["crowd_trusted"] for e in edge)


def test_an_element_only_contributions_report_is_held_out_of_plans_and_the_index_until_a_quorum(
        server, twins, memory, keys, redis_db, settings):
    run = real_run(twins, memory, "tap About")["run"]
    label = "Quokka marmalade"
    step = with_new_button(next(s for s in run["steps"] if s["action"] == "tap" and s["element"]["text"] == "About"),
                           label)
    screen = memory.locate(ACRYLIC, step["before_xml"], None, step["before_activity"]).model_dump()
    assert screen["match"] == "exact"  # an element added to a screen every user's plans go through
    forged = {**run, "task": f"tap {label}", "steps": [step]}

    def held_out() -> tuple[bool, bool, bool]:
        summarize(memory.store, memory.vectors, memory.embedder, DeterministicSummarizer(settings.risky_words),
                  [ACRYLIC])
        generations.bump(redis_db, [ACRYLIC])  # as `appmem summarize` does: servers drop their indexes
        indexed = label in {p.get("label") for _, p in memory.vectors.points("elements", [ACRYLIC])}
        found = label in {h.get("label") for h in memory.search(label, "element", ACRYLIC, 5)}
        planned = label in {s.element.label for s in memory.plan(f"tap {label}", ACRYLIC).steps if s.element}
        return not indexed, not found, not planned

    with ApiClient(server, key(keys, "contribute", "lone")) as api:
        assert api.wait_trace(api.contribute({**forged, "started": "2027-02-01T00:00:00Z"}).trace_id,
                              60).model_dump()["status"] == "done"
    assert held_out() == (True, True, True)  # one key: not in the index, search or plans
    for n in range(2):  # two more distinct keys report it: a quorum (APPMEM_TRUST_QUORUM, 3)
        with ApiClient(server, key(keys, "contribute", f"backer-{n}")) as api:
            assert api.wait_trace(api.contribute({**forged, "started": f"2027-02-0{n + 2}T00:00:00Z"}).trace_id,
                                  60).model_dump()["status"] == "done"
    assert held_out() == (False, False, False)


def test_one_keys_dump_of_a_known_screen_does_not_move_where_agents_are_located(server, twins, memory, keys):
    """A known screen's dump sent by one key without its activity (and under a version of its own) is
    stored as a screen only contributions report; until a quorum backs it, agents' dumps are still
    located on the imported screen and planned from it (found by an acceptance walkthrough)."""
    run = real_run(twins, memory, "tap About")["run"]
    dumps = [s["before_xml"] for s in run["steps"] if s["action"] != "start_app"]
    asked = lambda api: [(api.locate(ACRYLIC, xml).model_dump()["screen_id"],  # noqa: E731
                          plan_shape(api.plan("tap About", ACRYLIC, screen_xml=xml).model_dump())) for xml in dumps]
    with ApiClient(server, key(keys, "plan")) as api:
        before = asked(api)
    forged = {**run, "app_version": "9.9", "status": "failed", "started": "2027-04-01T00:00:00Z",
              "steps": [{"index": n, "action": "back", "before_xml": xml, "after_xml": xml}
                        for n, xml in enumerate(dumps)]}
    with ApiClient(server, key(keys, "contribute", "shadow")) as api:
        assert api.wait_trace(api.contribute(forged).trace_id, 60).model_dump()["status"] == "done"
    with ApiClient(server, key(keys, "plan")) as api:
        assert asked(api) == before


def test_a_correction_needs_the_correct_scope(server, keys):
    body = {"task": "x", "package": ACRYLIC, "app_version": "1.0", "action": "tap", "element": None,
            "before_xml": "<hierarchy/>", "after_xml": "<hierarchy/>"}
    with ApiClient(server, key(keys, "contribute")) as api:
        assert api.http.post("/v1/corrections", json=body).status_code == 403
    with ApiClient(server, key(keys, "correct,contribute")) as api:  # contribute: to read its status
        r = api.http.post("/v1/corrections", json=body)
        assert r.status_code in (202, 422), r.text
        if r.status_code == 202:  # ingested before the next test counts the graph (a purge test compares counts)
            assert api.wait_trace(r.json()["trace_id"], 60).model_dump()["status"] in ("done", "failed")


def test_a_contribution_never_overwrites_what_an_import_recorded(server, twins, memory, keys):
    run = real_run(twins, memory, "tap About")["run"]
    step = next(s for s in run["steps"] if s["element"] and s["element"]["text"])
    screen_id = memory.locate(ACRYLIC, step["before_xml"], None, step["before_activity"]).screen_id
    before_screen = memory.store.read("serve_screen", package=ACRYLIC, screen_id=screen_id)[0]
    before = {e["id"]: (e["bounds"], e["locators"], e["text"]) for e in memory.store.elements(screen_ids=[screen_id])}
    left, top, right, bottom = step["element"]["bounds"]
    moved = step["before_xml"].replace(f'bounds="[{left},{top}][{right},{bottom}]"', 'bounds="[1,1][9,9]"')
    assert moved != step["before_xml"]
    forged = {**run, "started": "2026-10-01T00:00:00Z", "steps": [{**step, "index": 0, "before_xml": moved,
              "element": {**step["element"], "bounds": [1, 1, 9, 9]}}]}
    with ApiClient(server, key(keys, "contribute")) as api:
        status = api.wait_trace(api.contribute(forged).trace_id, 60).model_dump()
    assert status["status"] == "done" and status["report"]["transitions"] >= 1
    assert memory.locate(ACRYLIC, moved, None, step["before_activity"]).screen_id == screen_id  # same screen
    after = {e["id"]: (e["bounds"], e["locators"], e["text"]) for e in memory.store.elements(screen_ids=[screen_id])}
    assert after == before  # same bounds and locators: the import's, not the contributor's
    assert memory.store.read("serve_screen", package=ACRYLIC, screen_id=screen_id)[0]["title"] == before_screen["title"]


# ---- 5. remove a contributor ------------------------------------------------------------------------

def test_a_purge_restores_the_graph_counts_exactly(server, twins, memory, keys, stack_env, tmp_path):
    fleet, _ = twins
    counts = lambda: memory.store.read("crowd_counts")[0]  # noqa: E731
    before = counts()
    name = "to-purge"
    contributor = key(keys, "contribute", name)
    run = real_run(twins, memory, "tap About")["run"]
    plan = memory.plan("tap About", ACRYLIC).model_dump()
    archive = tmp_path / "adfree.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(DROIDBOT / ADFREE, arcname=ADFREE)
    with ApiClient(server, contributor) as api:
        ids = [api.contribute({**run, "started": "2026-11-01T00:00:00Z"}).trace_id,
               api.contribute_droidbot(archive).trace_id]
        ids += [api.contribute(r).trace_id for r in forged_runs(fleet["twin-0001"], plan, "tap About",
                                                                   "2026-11-02T00:00:00Z")]
        reports = [api.wait_trace(i, 180).model_dump() for i in ids]
        assert {r["status"] for r in reports} == {"done"}
        # a run that replayed the task its first run stored: an outcome of the key on a task
        replayed = {**run, "started": "2026-11-03T00:00:00Z", "recalled_task": reports[0]["report"]["task"]}
        ids.append(api.contribute(replayed).trace_id)
        assert api.wait_trace(ids[-1], 60).model_dump()["report"]["recalled_task"]["counted"]
    during = counts()
    assert during["traces"] > before["traces"] and during["screens"] > before["screens"]
    assert during["task_runs"] > before["task_runs"] and during["task_successes"] > before["task_successes"]
    # its runs also added text variants' observations and element-to-element (LEADS_TO) observations
    assert during["text_observations"] > before["text_observations"]
    assert during["leads_to_observations"] > before["leads_to_observations"]
    # and its voice on order-2 outcomes (which edge followed which: graph/follows.py)
    assert during["follow_voices"] > before["follow_voices"]
    purged = cli(["keys", "purge", name, "--json"], stack_env)
    assert purged.returncode == 0, purged.stderr
    report = json.loads(purged.stdout)
    assert report["key"]["revoked"] and report["traces"] == len(ids)
    assert counts() == before
    with ApiClient(server, contributor) as api:
        assert api.http.get("/v1/apps").status_code == 401
    unknown = cli(["keys", "purge", "no-such-key", "--json"], stack_env)  # a script reads the error on stdout
    assert unknown.returncode == 2 and "no-such-key" in json.loads(unknown.stdout)["detail"], unknown.stdout


def test_a_purge_stopped_between_any_two_steps_and_run_again_restores_the_graph_counts_exactly(
        server, twins, memory, keys, redis_db, settings):
    """A key's runs (a demonstration, an outcome of it, forged shortcuts and failures, a version of its own);
    its purge stopped after each step in turn (a new key each time), then run again through the API: the
    graph counts are those before the key existed, and no journal is left (nothing subtracted twice)."""
    from appmem.ingest.purge import purge_contributor

    counts = lambda: memory.store.read("crowd_counts")[0]  # noqa: E731
    journal = lambda who: cypher_rows(memory.store, "MATCH (j:PurgeJournal {contributor: $c}) "  # noqa: E731
                                                    "RETURN j.tasks AS tasks", c=who)
    plan = memory.plan("tap About", ACRYLIC).model_dump()
    before = counts()
    for n, point in enumerate(PURGE_STEPS):
        record, secret = keys.create(f"stopped-{point}", "contribute", 1000)
        reports = sent_by(server, twins, memory, secret, n + 1, month=8)
        assert counts() != before
        with pytest.raises(Stopped):
            purge_contributor(memory.store, redis_db, record.id, settings.trust_quorum, memory.vectors,
                              after_step=stop_after(point))
        assert len(journal(record.contributor)) == 1, point  # stopped: the journal waits for the purge's end
        with ApiClient(server, key(keys, "admin", "stopped-purger")) as api:
            r = api.http.delete(f"/v1/contributors/{record.id}")
        assert r.status_code == 200 and r.json()["vectors"] == "deleted", r.text
        assert counts() == before, point
        assert journal(record.contributor) == []
        # nothing of its reports is left in Redis: not in its contributions' status, nor as a task's result
        assert all(Contributions(redis_db).status(r["trace_id"])["report"] is None for r in reports)
        kept = " ".join(redis_db.get(k) or "" for k in redis_db.scan_iter("celery-task-meta-*"))
        assert not any(r["report"]["graph_trace_id"] in kept for r in reports)
        assert plan_shape(memory.plan("tap About", ACRYLIC).model_dump()) == plan_shape(plan), point


def sent_by(server, twins, memory, secret: str, day: int, month: int = 11) -> list[dict]:
    """A key's runs (a demonstration, a version of its own, forged shortcuts and failures, an outcome of its
    demonstration), ingested: their reports."""
    fleet, _ = twins
    run = real_run(twins, memory, "tap About")["run"]
    plan = memory.plan("tap About", ACRYLIC).model_dump()
    at = lambda minute: f"2027-{month:02d}-{day:02d}T00:{minute:02d}:00Z"  # noqa: E731
    with ApiClient(server, secret) as api:
        sent = [{**run, "started": at(0)}, {**run, "started": at(1), "app_version": "9.9"}]
        sent += [{**r, "started": at(2 + i)}
                 for i, r in enumerate(forged_runs(fleet["twin-0001"], plan, "tap About", at(0), resent=False))]
        reports = [api.wait_trace(api.contribute(body).trace_id, 60).model_dump() for body in sent]
        assert {r["status"] for r in reports} == {"done"}, reports
        replayed = {**run, "started": at(59), "recalled_task": reports[0]["report"]["task"]}
        reports.append(api.wait_trace(api.contribute(replayed).trace_id, 60).model_dump())
        assert reports[-1]["status"] == "done"
    return reports


def killed_when_paused(args: list[str], env: dict, announced: str, timeout: int = 180) -> str:
    """Run the CLI until it logs `announced` (or `timeout` passes), then kill -9 it: its stderr so far."""
    proc = subprocess.Popen([sys.executable, "-m", "appmem.cli", *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=REPO)
    deadline = threading.Timer(timeout, proc.kill)  # a purge that never pauses: its stderr ends, the test fails
    deadline.start()
    seen = []
    try:
        for line in proc.stderr:
            seen.append(line)
            if announced in line:
                break
    finally:
        deadline.cancel()
        proc.kill()  # SIGKILL: no handler of the purge runs, its lock's lease is left to lapse
        proc.wait()
        proc.stderr.close()
    return "".join(seen)


@pytest.mark.parametrize("point", ["votes", "tasks"])
def test_a_purge_process_killed_between_two_steps_and_run_again_restores_the_graph_counts_exactly(
        server, twins, memory, keys, stack_env, point):
    """`appmem keys purge` run as a process that waits after a step (APPMEM_PURGE_PAUSE_AFTER) and is
    killed there; run again (once the killed process's lock lease lapsed), the graph counts are those
    before the key existed; the journal it left goes once a process that owns the vectors purges."""
    counts = lambda: memory.store.read("crowd_counts")[0]  # noqa: E731
    journal = lambda who: cypher_rows(memory.store, "MATCH (j:PurgeJournal {contributor: $c}) "  # noqa: E731
                                                    "RETURN j.contributor AS c", c=who)
    before = counts()
    name = f"killed-after-{point}"
    record, secret = keys.create(name, "contribute", 1000)
    sent_by(server, twins, memory, secret, 1 + PURGE_STEPS.index(point))
    during = counts()
    assert during["traces"] > before["traces"] and during["votes"] > before["votes"]
    paused = {**stack_env, "APPMEM_PURGE_PAUSE_AFTER": point, "APPMEM_PURGE_PAUSE_S": "600",
              "APPMEM_PURGE_LEASE_S": "2"}
    stderr = killed_when_paused(["keys", "purge", name, "--json"], paused, f"purge paused after step {point!r}")
    assert f"purge paused after step {point!r}" in stderr, stderr
    midway = counts()
    assert midway != before and midway != during, point  # stopped between two steps: some taken back, not all
    assert midway["votes"] == before["votes"]  # its votes went in one step, with the counts they added
    assert len(journal(record.contributor)) == 1
    again = cli(["keys", "purge", name, "--json"], stack_env)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["vectors"].startswith("not touched")  # this test process owns the vectors
    assert counts() == before, point
    with ApiClient(server, key(keys, "admin", "killed-purger")) as api:
        assert api.http.delete(f"/v1/contributors/{record.id}").json()["vectors"] == "deleted"
    assert counts() == before and journal(record.contributor) == []


def test_a_contribution_that_fails_after_its_chunks_landed_is_purged_exactly(
        twins, memory, keys, redis_db, settings):
    """A run ingested chunk by chunk (one step each) that fails after its first chunk: the chunk written
    carries its votes, so a purge takes its raw counts and its device's pseudonym off every edge."""
    from appmem.contract.run import RunTrace
    from appmem.ingest.contributions import pseudonym
    from appmem.ingest.purge import purge_contributor
    from appmem.ingest.run import ingest_run

    class Failed(Exception):
        pass

    def fail_after_one(done: int, _chunks: int) -> None:
        if done == 1:
            raise Failed

    counts = lambda: memory.store.read("crowd_counts")[0]  # noqa: E731
    devices = lambda: {d for row in memory.store.read("transition_devices", package=ACRYLIC)  # noqa: E731
                       for d in row["devices"]}
    before, devices_before = counts(), devices()
    record, _ = keys.create("failed-mid-ingest", "contribute", 10)
    run = real_run(twins, memory, "tap About")["run"]
    tapped = next(s for s in run["steps"] if s["action"] == "tap")  # an edge leaving one of the app's screens
    device = pseudonym(redis_db, f"{record.contributor}:{run['device']}")  # as the worker names it
    trace = RunTrace.model_validate({**run, "started": "2027-09-01T00:00:00Z", "device": device,
                                     "steps": [{**tapped, "index": 0}, {**tapped, "index": 1}]})
    with pytest.raises(Failed):
        ingest_run(memory.store, trace, record.contributor, 1, settings.trust_quorum, fail_after_one)
    assert counts()["observations"] > before["observations"] and device in devices()
    purge_contributor(memory.store, redis_db, record.id, settings.trust_quorum, memory.vectors)
    assert counts() == before and devices() == devices_before


def test_a_purge_takes_back_the_app_node_a_keys_dump_of_another_apps_screen_made(
        server, twins, memory, keys, stack_env):
    """A run of another app that started on a memorised app's screen (then pressed HOME) links that screen
    to an App node of its package at version '' (foreign screens carry no version): the purge takes the link
    and the node back (both only this key's), while the screen, the import's, stays."""
    counts = lambda: memory.store.read("crowd_counts")[0]  # noqa: E731
    before = counts()
    name = "foreign-start"
    contributor = key(keys, "contribute", name)
    start = real_run(twins, memory, "tap About")["run"]["steps"][0]
    root = etree.fromstring(start["after_xml"].encode())
    for node in root.iter("node"):
        node.set("package", "org.ligi.ajsha")
    other = etree.tostring(root, encoding="unicode")
    run = {"format": "appmem-run/1", "task": "open ajsha", "package": "org.ligi.ajsha", "app_version": "1.0",
           "device": "twin-0001", "started": "2026-12-02T00:00:00Z", "ended": "2026-12-02T00:00:00Z",
           "status": "failed", "steps": [{"index": 0, "action": "home", "before_xml": start["after_xml"],
                                          "before_activity": start["after_activity"], "after_xml": other}]}
    with ApiClient(server, contributor) as api:
        assert api.wait_trace(api.contribute(run).trace_id, 60).model_dump()["status"] == "done"
    assert counts()["apps"] >= before["apps"] + 2  # ajsha, and acrylic at version ''
    purged = cli(["keys", "purge", name, "--json"], stack_env)
    assert purged.returncode == 0, purged.stderr
    assert counts() == before


def test_delete_contributor_needs_admin_and_purges(server, twins, memory, keys):
    counts = lambda: memory.store.read("crowd_counts")[0]  # noqa: E731
    before = counts()
    record, contributor = keys.create("to-delete", "contribute", 1000)
    run = real_run(twins, memory, "tap About")["run"]
    with ApiClient(server, contributor) as api:
        assert api.wait_trace(api.contribute({**run, "started": "2026-12-01T00:00:00Z"}).trace_id,
                              60).model_dump()["status"] == "done"
    assert counts() != before
    with ApiClient(server, key(keys, "contribute,correct")) as api:
        assert api.http.delete(f"/v1/contributors/{record.id}").status_code == 403
    with ApiClient(server, key(keys, "admin")) as api:
        r = api.http.delete(f"/v1/contributors/{record.id}")
    assert r.status_code == 200 and r.json()["traces"] == 1 and r.json()["vectors"] == "deleted"
    assert counts() == before


def test_a_serve_worker_reading_snapshots_purges_the_vectors_too(settings, memory, keys, tmp_path):
    """A worker of `appmem serve --workers N` holds read-only snapshots: the purge opens the local folder
    (free here: another APPMEM_HOME on the same graph and Redis) instead of failing half-way on the
    snapshots, and re-publishes them."""
    from dataclasses import replace

    from appmem.api.contrib import purge
    from appmem.semantic.snapshots import SnapshotVectors

    worker = replace(settings, home=tmp_path)
    record, _ = keys.create("worker-purge", "contribute", 10)
    report = purge(worker, memory.store, keys.r, record.id, SnapshotVectors(worker.snapshot_path, memory.embedder.dim))
    assert report["key"]["revoked"] and report["vectors"] == "deleted"
    assert keys.get(record.id).revoked


# ---- 7. privacy and exposure ---------------------------------------------------------------------------

def test_devices_reach_the_graph_only_as_a_keyed_hash(server, twins, memory, keys):
    run = real_run(twins, memory, "tap About")["run"]
    run = {**run, "device": "pixel-of-ann-smith", "started": "2027-01-01T00:00:00Z"}
    with ApiClient(server, key(keys, "contribute")) as api:
        status = api.wait_trace(api.contribute(run).trace_id, 60).model_dump()
    trace = memory.store.read("serve_trace", trace_id=status["report"]["graph_trace_id"], task_id="")[0]
    assert "ann" not in json.dumps(trace, default=str)
    devices = {d for row in memory.store.read("transition_devices", package=ACRYLIC) for d in row["devices"]}
    assert not any("ann" in d for d in devices) and any(d.startswith("device:") for d in devices)


def test_the_app_map_needs_a_plan_key(server, keys):
    import httpx

    assert httpx.get(f"{server}/apps/{ACRYLIC}/map.json").status_code == 401
    r = httpx.get(f"{server}/apps/{ACRYLIC}/map.json", headers={"Authorization": f"Bearer {key(keys, 'plan')}"})
    assert r.status_code == 200 and r.json()["screens"]


# ---- 8. the step-wise LLM fallback ---------------------------------------------------------------------

class TinyLLM:
    """A small OpenAI-compatible chat server on a socket: it answers the queued replies in order. A reply is
    the assistant's content (a 200; a function of the prompt's JSON for one that depends on what the screen
    lists), or (status, headers, body) where the body may say {auth} (the request's Authorization header,
    echoed as some servers do), or ("trickle", content): the headers, then a space every 0.25 s for 10 s
    before the reply. `times`: when each request came."""

    def __init__(self, replies: list, times: list[float] | None = None):
        import time
        from http.server import BaseHTTPRequestHandler

        queue = list(replies)
        self.times = times if times is not None else []
        times = self.times

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's name)
                asked = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                times.append(time.monotonic())
                reply = queue.pop(0) if queue else '{"done": true}'
                if isinstance(reply, tuple) and reply[0] != "trickle":
                    status, headers, text = reply
                    self.send_response(status)
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(text.replace("{auth}", self.headers.get("Authorization", "")).encode())
                    return
                content = reply[1] if isinstance(reply, tuple) else reply
                if callable(content):
                    content = content(json.loads(asked["messages"][-1]["content"]))
                body = json.dumps({"id": "c1", "object": "chat.completion", "created": 0, "model": "tiny",
                                   "choices": [{"index": 0, "finish_reason": "stop",
                                                "message": {"role": "assistant", "content": content}}]}).encode()
                reply_json(self, body, trickle=isinstance(reply, tuple))

            def log_message(self, *args):
                pass

        self.httpd, self.url = serve(Handler)

    def close(self):
        self.httpd.shutdown()


def llm_run(twins, memory, settings, replies: list, start: str | None = None, confirm=lambda step: True,
            times: list[float] | None = None, **llm) -> dict:
    """A step-wise run of "tap About" in the painting app (from its recorded state `start`, else its launch),
    the LLM answering `replies` (Settings' `llm_*` from `llm`); `times` gets when each LLM request came."""
    from dataclasses import replace

    from appmem.runtime.stepwise import make_llm_step

    class NoRoute:  # the real memory, but it knows no route: the runtime goes on step by step
        def plan(self, task, app, **kw):
            return memory.plan(task, app).model_copy(update={"route": "none", "steps": []})

        def locate(self, *a, **k):
            return memory.locate(*a, **k)

        def hints(self, *a, **k):
            return memory.hints(*a, **k)

    tiny = TinyLLM(replies, times)
    try:
        step = make_llm_step(replace(settings, llm_base_url=tiny.url, llm_model="tiny", **llm))
        fleet, server = twins
        server.reset("twin-0001")
        if start:
            fleet["twin-0001"].goto(ACRYLIC, start)
        device = adbutils.AdbClient("127.0.0.1", server.port).device("twin-0001")
        return Runtime(DeviceDriver(device, "twin-0001"), NoRoute(), confirm, llm_step=step).run(
            "tap About", ACRYLIC)
    finally:
        tiny.close()


def test_an_invalid_llm_reply_is_a_failed_step_with_its_reason_never_done(twins, memory, settings):
    result = llm_run(twins, memory, settings, ["this is not json", '{"index": 999, "action": "tap"}',
                                               '{"index": 0, "action": "tap"}', '{"done": true}'])
    invalid = [s for s in result["steps"] if s["outcome"] == "invalid_reply"]
    assert len(invalid) == 2 and "not JSON" in invalid[0]["why"] and "999" in invalid[1]["why"]
    acted = [s for s in result["steps"] if s["action"] == "tap"]
    assert acted and result["status"] == "done" and result["reason"] == "the LLM judged the task done"
    assert all(s["action"] != "llm" for s in result["run"]["steps"])  # no device action: not in the trace
    garbage = llm_run(twins, memory, settings, ["nonsense"] * 5)
    assert garbage["status"] == "failed" and "invalid replies" in garbage["reason"]
    html = llm_run(twins, memory, settings, [(200, {"Content-Type": "text/html"}, "<html>oops</html>")])
    invalid = [s for s in html["steps"] if s["outcome"] == "invalid_reply"]
    assert len(invalid) == 1 and "not JSON" in invalid[0]["why"] and html["status"] == "done"  # then {"done": true}


KEY = "sk-crowd-0123456789abcdef"


def test_a_refused_llm_call_ends_the_run_at_once_with_a_keyless_reason(twins, memory, settings):
    """401 whose body echoes the Authorization header: one request, the run failed with a ConfigError naming
    the status; the key is nowhere in the result (reason, steps, trace)."""
    times: list[float] = []
    result = llm_run(twins, memory, settings, [(401, {}, '{"error": {"message": "bad key {auth}"}}')],
                     times=times, llm_api_key=KEY)
    assert len(times) == 1 and result["status"] == "failed", result["reason"]
    assert result["reason"].startswith("ConfigError: LLM endpoint") and "401" in result["reason"]
    assert KEY not in json.dumps(result) and "[API key]" in result["reason"]
    assert not [s for s in result["steps"] if s["outcome"] == "invalid_reply"]


def test_transient_llm_errors_are_retried_with_backoff_then_end_the_run(twins, memory, settings):
    """429 with Retry-After: 1, then a 500: retried (the second try a second later), then the reply is
    taken. A 500 every time: 3 tries, then the run fails with a TransientError, not "invalid replies"."""
    times: list[float] = []
    result = llm_run(twins, memory, settings, [(429, {"Retry-After": "1"}, "{}"), (500, {}, "{}"), '{"done": true}'],
                     times=times)
    assert result["status"] == "done" and len(times) == 3
    assert times[1] - times[0] >= 0.95 and times[2] - times[1] >= 0.45
    times.clear()
    failed = llm_run(twins, memory, settings, [(500, {}, "{}")] * 5, times=times)
    assert failed["status"] == "failed" and failed["reason"].startswith("TransientError: ") and len(times) == 3


def test_the_llm_timeout_bounds_each_whole_call(twins, memory, settings):
    """A reply trickled a byte every 0.25 s for 10 s at a 1 s timeout: each try is cut off at the deadline
    (a timeout, retried after a backoff of at most 1 s), and the run fails, not done by the late reply."""
    times: list[float] = []
    result = llm_run(twins, memory, settings, [("trickle", '{"done": true}')] * 3, times=times, llm_timeout_s=1)
    assert result["status"] == "failed" and "timed out" in result["reason"] and len(times) == 3
    # without a deadline on the whole call each try would last the 10 s trickle
    assert all(later - earlier < 5 for earlier, later in zip(times, times[1:])), times


def test_the_llm_sees_a_menu_rows_text_and_a_risky_row_it_picks_needs_a_confirmation(twins, memory, settings):
    """Acrylic's "Deletion options" menu: its rows are clickable layouts whose text is in a TextView inside.
    The prompt lists each row by that text; the row "Erase everything" the LLM picks is risky, and without a
    confirmation the run stops before tapping it."""
    fleet, _ = twins
    app = fleet["twin-0001"].apps[ACRYLIC]
    menu = next(s for s, state in app.states.items() if any(v.text == "Erase everything" for v in state.views))
    listed = []

    def pick_erase(prompt: dict) -> str:
        listed.extend(prompt["elements"])
        row = next(e["index"] for e in prompt["elements"] if "Erase everything" in e["text"])
        return json.dumps({"index": row, "action": "tap"})

    result = llm_run(twins, memory, settings, [pick_erase], start=menu, confirm=lambda step: False)
    assert {"Erase drawing only", "Erase background only", "Erase everything"} <= {e["text"] for e in listed}
    assert result["status"] == "stopped" and "not confirmed" in result["reason"], result["reason"]
    assert not [s for s in result["run"]["steps"] if s["action"] == "tap"]


# ---- issue 17: learns from every run: a run that replayed a stored task moves that task's counts -----------

def stored_counts(memory, task_id: str) -> tuple[int, int]:
    row = memory.store.read("recall_tasks", ids=[task_id])[0]
    return row["successes"], row["failures"]


def test_a_run_of_a_task_that_names_its_app_is_recalled_when_the_task_is_asked_again(
        twins, memory, settings, redis_db):
    """A task that names its app ("tap 'X' in org.example.app") is planned without the package's name
    (it says where, not what); the demonstration its run stores is described the same way, so the
    same task asked again recalls it. Before, the run was stored under the full text and never recalled."""
    from appmem.runtime.commands import contribute_locally

    task = f"tap 'Brush size' in {ACRYLIC}"
    done = real_run(twins, memory, task)["run"]
    assert done["status"] == "done" and done["recalled_task"] is None, done
    stored = stable_id("task", "agent", contribute_locally(settings, memory, done))
    summarize(memory.store, memory.vectors, memory.embedder, DeterministicSummarizer(settings.risky_words), [ACRYLIC])
    generations.bump(redis_db, [ACRYLIC])
    assert (memory.plan(task, ACRYLIC).model_dump()["recalled"] or {}).get("task_id") == stored
    assert (memory.plan(task).model_dump()["recalled"] or {}).get("task_id") == stored  # the app from the task


def test_a_reported_run_moves_the_counts_of_the_task_it_recalled_once_per_key(
        server, twins, memory, keys, redis_db, settings, stack_env, tmp_path):
    """plan recalls a stored task -> the runtime runs it on a twin -> its trace names the task -> reported
    through the API (a key) and the CLI (one's own import) -> the task's counts move, once per contributor
    (its latest outcome); failures of enough keys make recall prefer an equal task; a purge takes them back."""
    from appmem.runtime.commands import contribute_locally

    task = "tap the About button"  # no earlier test's run stored it: nothing to recall yet
    done = real_run(twins, memory, task)["run"]
    assert done["status"] == "done" and done["recalled_task"] is None
    # two demonstrations of the task, imported as one's own runs: two equal stored tasks
    stored = {stable_id("task", "agent", contribute_locally(settings, memory, {**done, "started": started}))
              for started in ("2027-03-01T00:00:00Z", "2027-03-02T00:00:00Z")}
    summarize(memory.store, memory.vectors, memory.embedder, DeterministicSummarizer(settings.risky_words), [ACRYLIC])
    generations.bump(redis_db, [ACRYLIC])
    recalled = memory.plan(task, ACRYLIC).model_dump()["recalled"]["task_id"]
    assert recalled in stored
    run = real_run(twins, memory, task)["run"]
    assert run["status"] == "done" and run["recalled_task"] == recalled  # the runtime names what it replayed
    reporter = keys.create("replayer", "contribute", 1000)
    with ApiClient(server, reporter[1]) as api:
        first = api.wait_trace(api.contribute({**run, "started": "2027-03-03T00:00:00Z"}).trace_id, 60).model_dump()
        again = api.wait_trace(api.contribute({**run, "started": "2027-03-04T00:00:00Z"}).trace_id, 60).model_dump()
    assert first["report"]["recalled_task"] == {"task_id": recalled, "counted": True, "ok": True,
                                                "successes": 1, "failures": 0}
    assert again["report"]["recalled_task"]["counted"] and stored_counts(memory, recalled) == (1, 0)  # once per key
    out = tmp_path / "run.json"
    out.write_text(json.dumps({**run, "started": "2027-03-05T00:00:00Z"}))
    imported = cli(["ingest", "run", str(out), "--json"], stack_env)
    assert imported.returncode == 0, imported.stderr
    assert json.loads(imported.stdout)["recalled_task"]["successes"] == 2 and stored_counts(memory, recalled) == (2, 0)
    again = cli(["ingest", "run", str(out)], stack_env)  # the same import again: still one voice
    assert f"replayed task {recalled}: 2 successes, 0 failures" in again.stdout, again.stdout + again.stderr
    # the same key's later run failed: its outcome is now a failure, still one voice
    failed = {**run, "status": "failed", "started": "2027-03-06T00:00:00Z", "ended": "2099-01-01T00:00:00Z"}
    with ApiClient(server, reporter[1]) as api:
        assert api.wait_trace(api.contribute(failed).trace_id, 60).model_dump()["status"] == "done"
    assert stored_counts(memory, recalled) == (1, 1)
    # a run naming a task of no stored task is kept, and counts for nothing
    with ApiClient(server, reporter[1]) as api:
        stray = api.wait_trace(api.contribute({**run, "recalled_task": "0" * 24,
                                               "started": "2027-03-07T00:00:00Z"}).trace_id, 60).model_dump()
    assert stray["status"] == "done" and stray["report"]["recalled_task"]["counted"] is False
    # one key's failure changes no recall; failures of enough keys (APPMEM_TRUST_QUORUM) do
    generations.bump(redis_db, [ACRYLIC])
    assert memory.plan(task, ACRYLIC).model_dump()["recalled"]["task_id"] == recalled
    for n in range(2):
        with ApiClient(server, key(keys, "contribute", f"replayer-{n}")) as api:
            assert api.wait_trace(api.contribute({**failed, "started": f"2027-03-1{n}T00:00:00Z"}).trace_id,
                                  60).model_dump()["status"] == "done"
    assert stored_counts(memory, recalled) == (1, 3)
    generations.bump(redis_db, [ACRYLIC])
    other = memory.plan(task, ACRYLIC).model_dump()["recalled"]["task_id"]
    assert other in stored and other != recalled
    # a purge of the first key takes its outcome back
    purged = cli(["keys", "purge", "replayer", "--json"], stack_env)
    assert purged.returncode == 0, purged.stderr
    assert json.loads(purged.stdout)["task_runs"] == 1 and stored_counts(memory, recalled) == (1, 2)
