"""Serving: /healthz before and after the preload, the plan cache shared in Redis and retired by an ingest,
what a worker keeps loaded per app generation, the CLI through a running server and in process (from the
snapshots), OpenTelemetry spans (console exporter)."""
from __future__ import annotations

import dataclasses
import gc
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from fastapi.testclient import TestClient

from appmem.agent.plancache import PLAN_PREFIX
from appmem.agent.service import Service
from appmem.api.app import create_app
from appmem import generations, tracing
from appmem.stack import Stack
from tests.api.conftest import CALENDAR
from tests.conftest import DROIDTASK, REPO
from appmem.workers.devices import open_redis

TASK = "change the view from monthly to yearly"


class GatedService(Service):
    """The real service, whose preload waits until the test opens the gate (to see /healthz while loading)."""

    gate: threading.Event

    def preload(self, packages=None, stop=None):
        assert self.gate.wait(60)
        return super().preload(packages, stop)


def test_healthz_says_loading_until_every_app_is_preloaded_then_ready(memory, settings):
    service = GatedService(memory.store, memory.vectors, memory.embedder, settings)
    service.gate = threading.Event()
    with TestClient(create_app(settings, service), raise_server_exceptions=False) as client:
        loading = client.get("/healthz")
        assert loading.status_code == 503 and loading.json()["status"] == "loading"
        assert service._planner is None or not service._planner._graphs
        service.gate.set()
        deadline = time.monotonic() + 60
        while (ready := client.get("/healthz")).status_code == 503 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ready.status_code == 200 and ready.json()["status"] == "ready"
        planner = service.planner()
        assert (CALENDAR,) in planner._graphs and (CALENDAR,) in planner._indexes


def test_a_shutdown_while_loading_stops_the_preload_before_the_caller_closes_the_service(memory, settings):
    """The preload reads the service: the server's shutdown tells it to stop and waits for it, so that the
    caller that closes the service next (and with it the local vector folders) meets no thread still reading."""
    service = GatedService(memory.store, memory.vectors, memory.embedder, settings)
    service.gate = threading.Event()
    app = create_app(settings, service)
    stopping = app.state.services.stopping
    threading.Thread(target=lambda: stopping.wait(60) and service.gate.set(), daemon=True).start()
    with TestClient(app, raise_server_exceptions=False) as client:
        assert client.get("/healthz").json()["status"] == "loading"
    assert stopping.is_set()
    assert not [t for t in threading.enumerate() if t.name == "appmem-preload"]
    assert not service.planner()._graphs  # stopped before its first app


def test_without_preload_healthz_is_ready_at_once(memory, settings):
    from dataclasses import replace

    service = Service(memory.store, memory.vectors, memory.embedder, settings)
    with TestClient(create_app(replace(settings, preload=False), service)) as client:
        assert client.get("/healthz").json()["status"] == "ready"
        assert service._planner is None  # nothing was loaded before the first request


def plan_keys(r) -> set[str]:
    return set(r.scan_iter(PLAN_PREFIX + "*"))


def test_an_ingest_retires_the_apps_cached_plans(memory, settings, stack_env, client, bearer):
    r = open_redis(Stack(settings).redis_url())
    headers = bearer()
    body = {"task": TASK, "app": "calendar"}
    first = client.post("/v1/plan", json=body, headers=headers)
    keys = plan_keys(r)
    assert first.status_code == 200 and keys
    assert client.post("/v1/plan", json=body, headers=headers).json() == first.json()
    assert plan_keys(r) == keys  # the same request: answered from the cache
    # Another worker process (its own Service, the same Redis) answers from that cache too.
    other = Service(memory.store, memory.vectors, memory.embedder, settings, r)
    assert other.plan(TASK, "calendar").model_dump(mode="json") == first.json()
    assert plan_keys(r) == keys
    # What this worker keeps loaded: the app's index, and the every-app index of app choice (no app named).
    assert client.post("/v1/plan", json={"task": TASK}, headers=headers).json()["package"] == CALENDAR
    planner = memory.planner()
    index, everything = planner.index([CALENDAR]), planner.index(None)
    keys = plan_keys(r)
    before = generations.current(r, [CALENDAR])
    ingest = subprocess.run([sys.executable, "-m", "appmem.cli", "ingest", "autodroid", str(DROIDTASK / "calendar"),
                             "--app", "calendar", "--json"], cwd=REPO, env=stack_env, capture_output=True,
                            text=True, timeout=300)
    assert ingest.returncode == 0, ingest.stderr
    assert generations.current(r, [CALENDAR]) != before
    again = client.post("/v1/plan", json=body, headers=headers)
    assert again.status_code == 200 and again.json()["package"] == CALENDAR
    assert len(plan_keys(r) - keys) == 1  # planned again for the new generation, not served from the old one
    # the ingest dropped what the worker had loaded of the app, app choice's index with it
    assert planner.index([CALENDAR]) is not index and None not in planner._indexes
    chosen = client.post("/v1/plan", json={"task": TASK}, headers=headers).json()
    assert chosen["package"] == CALENDAR and planner.index(None) is not everything


def test_the_cli_plans_locates_and_hints_through_a_running_server(served, memory, stack_env, tmp_path):
    url, key = served
    env = {**stack_env, "APPMEM_SERVER": url, "APPMEM_KEY": key}
    task = json.loads((DROIDTASK / "calendar" / "tasks.json").read_text())[0]
    html = tmp_path / "screen.html"
    html.write_text(task["profile"][0]["state"])

    def cli(*args: str) -> dict:
        out = subprocess.run([sys.executable, "-m", "appmem.cli", *args, "--json"], cwd=REPO, env=env,
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    # The test process owns the local vector folder: a CLI that opened the stores could not plan at all.
    assert cli("plan", TASK, "--app", "calendar") == memory.plan(TASK, "calendar").model_dump(mode="json")
    located = cli("locate", "--app", "calendar", "--screen-html", str(html))
    assert located == memory.locate("calendar", screen_html=task["profile"][0]["state"]).model_dump(mode="json")
    assert located["match"] == "exact"
    hints = cli("hints", "--task", task["task"], "--app", "calendar", "--screen-html", str(html))
    assert hints["screen_id"] == located["screen_id"] and hints["task"] == task["task"]


# Plans in a process of its own, as `appmem plan` makes them, reporting which heavy modules it imported.
CLI_PROBE = """
import json, sys
from appmem.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "imported": sorted(m for m in ("qdrant_client", "redis", "appmem.twins.replay")
                                                  if m in sys.modules)}),
      file=sys.stderr)
"""


def test_the_cli_plans_in_process_from_the_snapshots_while_another_process_owns_the_vector_folder(memory, stack_env):
    """No APPMEM_SERVER: the CLI plans from the stores itself. This process owns the local vector folder
    (`memory` opened it writable), so a CLI that opened the folder could not plan at all; it reads the
    per-app snapshots, and never imports the Qdrant client or Redis (what made a cold call slow), nor the twins'
    replay (the CLI offers its modes from twins/modes.py)."""
    env = {k: v for k, v in stack_env.items() if k not in ("APPMEM_SERVER", "APPMEM_KEY")}
    out = subprocess.run([sys.executable, "-c", CLI_PROBE, "plan", TASK, "--app", "calendar", "--json"], cwd=REPO,
                         env=env, capture_output=True, text=True, timeout=120)
    probe = json.loads(out.stderr.strip().splitlines()[-1])
    assert out.returncode == 0 and probe["code"] == 0, out.stderr
    assert json.loads(out.stdout) == memory.plan(TASK, "calendar").model_dump(mode="json")
    assert probe["imported"] == []


def test_the_cli_says_what_to_run_for_an_app_without_vectors(memory, stack_env, tmp_path):
    """A memory whose vectors were never summarised (no snapshot, no vector folder): a clear error, no traceback."""
    env = {**{k: v for k, v in stack_env.items() if k not in ("APPMEM_SERVER", "APPMEM_KEY")},
           "APPMEM_HOME": str(tmp_path)}  # the same graph and Redis, but no vectors at all
    for name in ("secrets", "run"):  # the graph's password and the stack's state stay those of the test stack
        src = Path(stack_env["APPMEM_HOME"]) / name
        if src.exists():
            shutil.copytree(src, tmp_path / name)
    out = subprocess.run([sys.executable, "-m", "appmem.cli", "plan", TASK, "--app", "calendar", "--json"],
                         cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert "appmem summarize" in out.stderr


def test_a_worker_drops_only_what_it_loaded_of_the_apps_that_changed(memory, settings):
    """A serve worker keeps each app's graph and index and the every-app index of app choice; a writer's bump
    of another app keeps them, a bump of the app (what an ingest does) drops that app's and app choice's."""
    r = open_redis(Stack(settings).redis_url())
    service = Service(memory.store, memory.vectors, memory.embedder, settings, r)
    service.plan("open the settings", "calendar")
    service.plan("open the settings")  # no app: chosen over every app's elements
    planner = service.planner()
    graph, index, everything = planner.graph([CALENDAR]), planner.index([CALENDAR]), planner.index(None)
    generations.bump(r, ["org.example.elsewhere"])  # another app changed
    service.plan("open the about screen", "calendar")
    service.plan("open the about screen")
    assert planner.graph([CALENDAR]) is graph and planner.index([CALENDAR]) is index
    assert planner.index(None) is everything
    generations.bump(r, [CALENDAR])  # calendar changed
    service.plan("show the events list", "calendar")
    assert planner.graph([CALENDAR]) is not graph and planner.index([CALENDAR]) is not index
    assert None not in planner._indexes  # app choice reads every app again on its next query
    choice = service.plan("show the events list")
    assert planner.index(None) is not everything and choice.package == CALENDAR


def test_the_preloaded_memory_is_out_of_the_collectors_sight_until_the_server_stops(memory, settings):
    """Once preloaded, what a server holds leaves the garbage collector's full collections (gc.freeze): the
    loaded graph is among the frozen objects, not among those a collection walks; the server still plans, and
    at its shutdown the collector sees everything again."""
    service = Service(memory.store, memory.vectors, memory.embedder, settings)
    with TestClient(create_app(settings, service), raise_server_exceptions=False) as client:
        deadline = time.monotonic() + 60
        while client.get("/healthz").status_code == 503 and time.monotonic() < deadline:
            time.sleep(0.05)
        graph = service.planner().graph([CALENDAR])
        assert gc.get_freeze_count() > 0
        assert not any(o is graph for o in gc.get_objects())  # frozen: no collection walks it
        assert service.plan(TASK, "calendar").steps
    assert gc.get_freeze_count() == 0
    assert any(o is graph for o in gc.get_objects())


def test_a_change_that_drops_loaded_memory_thaws_what_was_frozen(memory, settings):
    """Dropped loaded memory may hold cycles only the collector frees: a bump of a loaded app (what an ingest
    does), or `forget`, puts the frozen objects back in its sight; a bump of another app changes nothing loaded."""
    r = open_redis(Stack(settings).redis_url())
    service = Service(memory.store, memory.vectors, memory.embedder, settings, r)
    try:
        service.preload([CALENDAR])
        service.plan("open the settings", "calendar")
        service.freeze()
        generations.bump(r, ["org.example.elsewhere"])  # another app changed: the calendar stays loaded
        service.plan("open the about screen", "calendar")
        assert gc.get_freeze_count() > 0
        generations.bump(r, [CALENDAR])
        service.plan("show the events list", "calendar")
        assert gc.get_freeze_count() == 0
        service.freeze()
        service.forget()
        assert gc.get_freeze_count() == 0
    finally:
        service.thaw()


def test_spans_around_plan_locate_ingest_and_summarize_are_emitted(memory, settings, store, capsys):
    from appmem.ingest.autodroid import read_autodroid
    from appmem.ingest.pipeline import ingest_trace
    from appmem.semantic.pipeline import summarize
    from appmem.semantic.summaries import DeterministicSummarizer

    service = Service(memory.store, memory.vectors, memory.embedder, settings)
    task = json.loads((DROIDTASK / "calendar" / "tasks.json").read_text())[0]
    tracing.configure("console")
    try:
        service.plan("open the settings", "calendar")
        service.locate("calendar", screen_html=task["profile"][0]["state"])
        imported = read_autodroid(DROIDTASK / "calendar", "calendar")
        ingest_trace(store, imported.trace, chunk_size=100)
        summarize(store, memory.vectors, memory.embedder, DeterministicSummarizer(settings.risky_words), [CALENDAR])
    finally:
        tracing.configure(None)
    printed = capsys.readouterr().out
    names = [json.loads(s)["name"] for s in split_spans(printed)]
    assert {"appmem.plan", "appmem.locate", "appmem.ingest", "appmem.summarize"} <= set(names)
    service.plan("open the settings again", "calendar")  # tracing off again: nothing printed
    assert capsys.readouterr().out == ""


def split_spans(text: str) -> list[str]:
    """The console exporter prints one indented JSON object per span."""
    decoder, spans, i = json.JSONDecoder(), [], 0
    while (start := text.find("{", i)) >= 0:
        obj, end = decoder.raw_decode(text, start)
        spans.append(json.dumps(obj))
        i = end
    return spans


def test_plan_from_an_html_screen_without_app_chooses_the_app_then_locates(memory):
    """An AutoDroid HTML screen names no app: the service chooses it from the task, then locates the screen."""
    task = json.loads((DROIDTASK / "calendar" / "tasks.json").read_text())[0]
    plan = memory.plan("open the settings", screen_html=task["profile"][0]["state"])
    assert plan.package == CALENDAR and plan.start.match == "exact"


def test_two_workers_answer_the_same_plan(memory, settings, stack_env, keys):
    """`appmem serve --workers 2`: two processes, each planning from the same memory (the vectors read
    from the read-only snapshots, while this process owns the vector folder), give one answer; each plans
    tasks no one asked before as this process does."""
    import httpx

    with serve_cli(stack_env, 2) as (url, server):
        _, key = keys.create("two-workers", "plan")
        tasks = [t["task"] for t in json.loads((DROIDTASK / "calendar" / "tasks.json").read_text())]
        seen: dict[str, dict] = {}
        planned: dict[str, int] = {}
        deadline = time.monotonic() + 240
        i = 0
        while (len(seen) < 2 or len(planned) < 2) and time.monotonic() < deadline and server.poll() is None:
            new = tasks[i % len(tasks)]
            i += 1
            try:  # a new connection each time: the kernel hands it to either worker
                same = httpx.post(url + "/v1/plan", json={"task": TASK, "app": "calendar"},
                                  headers={"Authorization": f"Bearer {key}"}, timeout=60)
                fresh = httpx.post(url + "/v1/plan", json={"task": new, "app": "calendar"},
                                   headers={"Authorization": f"Bearer {key}"}, timeout=60)
            except httpx.HTTPError:
                time.sleep(0.3)
                continue
            assert same.status_code == 200 and fresh.status_code == 200, (same.text, fresh.text)
            seen[same.headers["x-appmem-worker"]] = same.json()
            assert fresh.json() == memory.plan(new, "calendar").model_dump(mode="json")
            planned[fresh.headers["x-appmem-worker"]] = planned.get(fresh.headers["x-appmem-worker"], 0) + 1
        assert len(seen) == 2 and len(planned) == 2, f"answers from {set(seen) | set(planned)}; exit {server.poll()}"
        first, second = seen.values()
        assert first == second == memory.plan(TASK, "calendar").model_dump(mode="json")
        assert str(os.getpid()) not in seen


def test_one_serve_process_chooses_the_app_from_the_snapshots_without_the_vector_folder(memory, stack_env, keys):
    """`appmem serve --workers 1` reads its vectors as the workers of `--workers N` do, from the read-only
    snapshots: this process owns the vector folder (`memory` opened it writable, as `summarize` would), and
    the server still starts, chooses the app of a task that names none and plans it as this process does.
    Before, it opened the writable per-app folders (at 1,000 apps, every app's folder in turn)."""
    import httpx

    with serve_cli(stack_env, 1) as (url, server):
        _, key = keys.create("one-process", "plan")
        deadline = time.monotonic() + 180
        answer = None
        while answer is None and time.monotonic() < deadline and server.poll() is None:
            try:
                answer = httpx.post(url + "/v1/plan", json={"task": TASK},
                                    headers={"Authorization": f"Bearer {key}"}, timeout=60)
            except httpx.HTTPError:
                time.sleep(0.3)
        assert answer is not None, f"the server exited with {server.poll()}: {server.stderr.read()[-2000:]}"
        assert answer.status_code == 200, answer.text
        assert answer.json() == memory.plan(TASK).model_dump(mode="json")
        assert answer.json()["package"] == CALENDAR


def test_serve_without_workers_runs_one_per_core(memory, stack_env):
    """No --workers and APPMEM_WORKERS=0, as .env.example ships it: one worker per core, serving (it was
    "--workers must be at least 1, got 0"). A negative APPMEM_WORKERS is one line naming it."""
    import httpx

    from appmem.semantic.embedder import cores

    env = {**stack_env, "APPMEM_WORKERS": "0", "APPMEM_PRELOAD": "0"}
    with serve_cli(env, None) as (url, server):
        banner = server.stderr.readline()
        assert f" with {cores()} worker" in banner and url in banner, banner
        answer = None
        deadline = time.monotonic() + 120
        while answer is None and time.monotonic() < deadline and server.poll() is None:
            try:
                answer = httpx.get(url + "/healthz", timeout=10)
            except httpx.HTTPError:
                time.sleep(0.3)
        assert answer is not None and answer.status_code == 200, f"exit {server.poll()}"
    bad = subprocess.run([sys.executable, "-m", "appmem.cli", "serve"], cwd=REPO, capture_output=True, text=True,
                         env={**stack_env, "APPMEM_WORKERS": "-1"}, timeout=60)
    assert bad.returncode == 2 and bad.stderr.strip().splitlines() == [
        "appmem: error: APPMEM_WORKERS must be 0 (one per core) or more, got -1"], bad.stderr


def test_a_server_runs_its_model_on_one_onnx_thread_unless_told(memory, settings):
    """A serve worker's model runs on one ONNX thread (its concurrent requests use the cores side by side), and
    on APPMEM_MODEL_THREADS threads when set."""
    from dataclasses import replace

    from appmem.api.app import model_threads

    with TestClient(create_app(replace(settings, preload=False))) as client:
        embedder = client.app.state.services.service.embedder
        assert embedder.threads == 1
        assert embedder._model.model.model.get_session_options().intra_op_num_threads == 1
    assert model_threads(replace(settings, model_threads=3)) == 3


@contextmanager
def serve_cli(stack_env: dict, workers: int | None) -> Iterator[tuple[str, subprocess.Popen]]:
    """`appmem serve --workers N` (None: no --workers) as its own process group on a free port: its URL and
    process, stopped (every worker with it) on the way out."""
    from tests.conftest import free_port

    port = free_port()
    argv = [sys.executable, "-m", "appmem.cli", "serve", "--port", str(port)]
    server = subprocess.Popen(argv + (["--workers", str(workers)] if workers is not None else []),
                              cwd=REPO, env=stack_env, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        yield f"http://127.0.0.1:{port}", server
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=60)


class CountingService(Service):
    """The real service, counting the plans it computes (those not answered from the plan cache)."""

    computed = 0

    def _answer(self, *args, **kwargs):
        type(self).computed += 1
        return super()._answer(*args, **kwargs)


def test_agents_asking_one_new_task_together_get_it_planned_once(memory, settings):
    """Eight threads of one worker ask a task never asked, at once: one plans it, the others wait and read its
    plan; the same again with no plan kept at all (a budget of zero), where the waiters read it from the first."""
    for budget_mb, task in ((64, "open the settings of the week view"), (0, "show the settings of the month view")):
        service = CountingService(memory.store, memory.vectors, memory.embedder,
                                  dataclasses.replace(settings, plan_cache_mb=budget_mb),
                                  open_redis(Stack(settings).redis_url()))
        CountingService.computed = 0
        start, plans = threading.Barrier(8), []

        def agent() -> None:
            start.wait()
            plans.append(service.plan(task, "calendar").model_dump(mode="json"))

        threads = [threading.Thread(target=agent) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert len(plans) == 8 and all(p == plans[0] for p in plans) and plans[0]["steps"]
        assert CountingService.computed == 1
        assert not service._plans._computing  # no flight left behind
