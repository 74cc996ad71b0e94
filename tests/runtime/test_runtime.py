"""`appmem run` on app twins, and contributions through the API into the graph: the real adb protocol,
graph, vectors, embedding model, Redis and Celery. Tasks are built from the twins' recorded graphs
(tests/twin_tasks.py); the twins are simulators replaying DroidBot recordings."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections import Counter

import adbutils
import pytest

from appmem.runtime.commands import contribute_locally
from appmem.runtime.grounding import drawn_package, ground, node_at
from appmem.runtime.outbox import Outbox
from appmem.runtime.outcome import shows
from appmem.runtime.runtime import Runtime, planned_app
from appmem.contract.client import ApiClient
from appmem.contract.plan import Plan, PlanStep
from appmem.keys import KeyStore
from appmem.agent.service import Service
from appmem.stack import Stack
from appmem.formats.ui import stable_id
from appmem.graph.screens import screen_of
from appmem.graph.votes import crowd_reliability
from appmem.ingest.droidbot import read_recording, recording_trace
from appmem.ingest.pipeline import ingest_trace
from appmem.ingest.run import run_trace, validate_run
from appmem.semantic.pipeline import summarize
from appmem.semantic.summaries import DeterministicSummarizer
from tests.conftest import DROIDBOT, REPO, api_on_socket
from tests.twin_tasks import reached as twin_reached, recorded_tasks, state_of_screen, unseen_targets
from appmem.workers.crawl import WorkerProcesses
from appmem.workers.devices import open_redis
from appmem.device.driver import DeviceDriver
from appmem.twins.adb_server import TwinServer
from appmem.twins.app import LAUNCHER_PACKAGE, TwinApp
from appmem.twins.device import build_fleet
from appmem.twins.modes import SIMILAR
from appmem.twins.render import hierarchy_xml

ACRYLIC = "anupam.acrylic"
ONELIST = "com.lolo.io.onelist"
AD_SILENCE = "bluepie.ad_silence"  # DroidBot caught it under the notification shade
APPS = (ACRYLIC, ONELIST, AD_SILENCE)


@pytest.fixture(scope="module")
def memory(store, settings):
    while store.write("delete_all")[0]["deleted"]:
        pass
    for app in APPS:  # imported under the version the twins report, as a device's own runs are
        version = TwinApp.from_droidbot(DROIDBOT / app).version
        ingest_trace(store, recording_trace(read_recording(DROIDBOT / app), app_version=version), 200)
    memory = Service.open(settings)
    summarize(store, memory.vectors, memory.embedder, DeterministicSummarizer(settings.risky_words), list(APPS))
    yield memory
    memory.vectors.client.close()


@pytest.fixture(scope="module")
def twins():
    fleet = build_fleet([DROIDBOT / app for app in APPS], 3)
    with TwinServer(fleet) as server:
        yield fleet, server


def runtime(twins, memory, serial="twin-0001", **kw) -> Runtime:
    fleet, server = twins
    server.reset(serial)
    device = adbutils.AdbClient("127.0.0.1", server.port).device(serial)
    return Runtime(DeviceDriver(device, serial), memory, lambda step: True, **kw)


def reached(result: dict, task: dict) -> bool:
    return result["status"] == "done" and result["steps"][-1]["reached_screen"] == task["target"]


def test_the_runtime_reaches_recorded_targets_on_twins(twins, memory):
    tasks = recorded_tasks(memory.store, ACRYLIC, 8)
    results = [runtime(twins, memory).run(t["task"], ACRYLIC) for t in tasks]
    done = [reached(r, t) for r, t in zip(results, tasks)]
    print(f"\n{ACRYLIC}: {sum(done)}/{len(tasks)} recorded tasks reached their target")
    # 8/8 when this was written (bench/runtime.py has every twin app); a miss would be a plan the
    # recording cannot follow (the twin is a simulator: a tap it never recorded changes nothing).
    assert len(tasks) == 8 and sum(done) >= 7
    first = results[0]
    assert first["steps"][0]["action"] == "start_app" and first["run"]["format"] == "appmem-run/1"


def sent_home_after_first_tap(device):
    """A progress hook: after the run's first tap in the app the device shows the app's launch screen again
    (what another user or the app itself might do). Returns the hook and the list of step indexes it acted on."""
    teleported = []

    def interfere(step):
        if step["action"] == "tap" and not teleported:
            teleported.append(step["index"])
            device.goto(ACRYLIC, device.apps[ACRYLIC].entry)

    return interfere, teleported


def test_a_step_that_lands_somewhere_unexpected_is_recovered_by_replanning(twins, memory):
    fleet, _ = twins
    task = next(t for t in recorded_tasks(memory.store, ACRYLIC, 8) if t["label"] == "About")
    interfere, teleported = sent_home_after_first_tap(fleet["twin-0002"])

    result = runtime(twins, memory, "twin-0002", progress=interfere).run(task["task"], ACRYLIC)
    assert teleported and result["replans"] >= 1
    assert any(s["outcome"] != "ok" for s in result["steps"])
    assert reached(result, task), result["steps"]


def test_a_stuck_run_restarts_the_app_once_and_goes_on_from_its_launch_screen(twins, memory):
    """An app whose screen ignores every tap until it is restarted: the run spends its re-plans, restarts the app
    (force-stop, launch) and reaches its target from the launch screen, with a fresh budget. Without relaunches
    (or with no re-planning: bench/runtime.py's baseline) it fails where it was stuck."""
    fleet, _ = twins
    device = fleet["twin-0002"]
    task = next(t for t in recorded_tasks(memory.store, ACRYLIC, 8) if t["label"] == "About")
    for relaunches, budget in ((1, 2), (0, 2), (1, 0)):
        frozen = [True]
        tap, stop_app = device.tap, device.stop_app

        def ignored_until_restarted(x: int, y: int) -> None:
            if not frozen[0]:
                tap(x, y)

        def restart(package: str) -> None:
            frozen[0] = False
            stop_app(package)

        device.tap, device.stop_app = ignored_until_restarted, restart
        try:
            result = runtime(twins, memory, "twin-0002", relaunches=relaunches, max_replans=budget).run(
                task["task"], ACRYLIC)
        finally:
            del device.tap, device.stop_app
        actions = [s["action"] for s in result["steps"]]
        if relaunches and budget:
            assert reached(result, task) and result["relaunches"] == 1, result["steps"]
            at = actions.index("stop_app")
            assert actions[at + 1] == "start_app" and result["steps"][at - 1]["outcome"] == "no_effect"
            assert result["replans"] > budget  # each launch had its own budget; the restart counts as one
        else:
            assert result["status"] == "failed" and result["relaunches"] == 0 and "stop_app" not in actions


class Asked:
    """The real memory, noting each plan request and its answer."""

    def __init__(self, memory):
        self.memory, self.plans = memory, []

    def __getattr__(self, name):
        return getattr(self.memory, name)

    def plan(self, task, app=None, **kw):
        answer = self.memory.plan(task, app, **kw)
        self.plans.append((kw.get("came_from"), answer.model_dump()))
        return answer


def test_each_replan_names_the_step_just_taken_as_memory_planned_it(twins, memory):
    fleet, _ = twins
    task = next(t for t in recorded_tasks(memory.store, ACRYLIC, 8) if t["label"] == "About")
    interfere, teleported = sent_home_after_first_tap(fleet["twin-0002"])

    asked = Asked(memory)
    result = runtime(twins, asked, "twin-0002", progress=interfere).run(task["task"], ACRYLIC)
    assert teleported and result["replans"] >= 1, result["steps"]
    assert asked.plans[0][0] is None  # the run's first plan follows no step (nor does one after a launch)
    assert all(came is None for came, _ in asked.plans[:1 + (result["steps"][0]["action"] == "start_app")])
    after_tap = [(came, before) for (came, _), (_, before) in zip(asked.plans[1:], asked.plans) if came]
    came, before = after_tap[0]  # the tap the device answered by going back: as the plan before gave it
    assert came in [{"screen_id": s["screen_id"], "action": "tap", "element_id": s["element"]["id"], "detail": ""}
                    for s in before["steps"] if s["action"] == "tap"], (came, before["steps"])


def test_a_run_is_done_once_its_last_step_is_taken_wherever_the_app_goes_then(twins, memory):
    """The plan's last step is the task's target: once it is taken on its element and the app reacts, the
    run is done, also when the app shows another screen than memory expected (a dialog's CANCEL returns to
    what was under it); a step before the last one that lands elsewhere still re-plans (test above)."""
    fleet, _ = twins
    task = next(t for t in recorded_tasks(memory.store, ACRYLIC, 8) if t["label"] == "About")
    device = fleet["twin-0003"]
    app = device.apps[ACRYLIC]
    target = state_of_screen(app, task["target"])
    known = {task["target"], task["screen"], screen_of(app.states[app.entry], ACRYLIC, app.version).id}
    elsewhere = next(sid for sid, s in app.states.items()
                     if s.package == ACRYLIC and screen_of(s, ACRYLIC, app.version).id not in known)
    tap = device.tap

    def tap_then_go_elsewhere(x: int, y: int) -> None:  # this time the app answers the About tap elsewhere
        tap(x, y)
        if device.foreground.state_id == target:
            device.goto(ACRYLIC, elsewhere)

    device.tap = tap_then_go_elsewhere
    try:
        result = runtime(twins, memory, "twin-0003").run(task["task"], ACRYLIC)
    finally:
        del device.tap
    last = result["steps"][-1]
    assert result["status"] == "done" and result["replans"] == 0, result
    assert last["label"] == "About" and last["outcome"] == "missed" and last["reached_screen"] != task["target"]
    assert "last step (About)" in result["reason"]


def test_a_window_another_package_draws_over_the_app_is_dismissed_before_planning(twins, memory):
    fleet, _ = twins
    device = fleet["twin-0002"]
    app = device.apps[AD_SILENCE]
    shaded = [sid for sid, state in app.states.items()
              if state.package == AD_SILENCE and drawn_package(hierarchy_xml(state)) not in ("", AD_SILENCE)]
    assert shaded  # recorded states whose dump is the system UI's window over the focused app
    task = recorded_tasks(memory.store, AD_SILENCE, 1)[0]
    rt = runtime(twins, memory, "twin-0002")
    device.goto(AD_SILENCE, shaded[0])
    result = rt.run(task["task"], AD_SILENCE)
    assert result["steps"][0]["action"] == "back", result["steps"]
    # then it goes on in the app itself: a screen memory knows, not the overlay it could not place
    assert any(s["reached_screen"] for s in result["steps"][1:]), result["steps"]


def test_a_window_over_the_app_that_memory_keeps_as_the_apps_screen_is_planned_from_when_the_target_is_on_it(
        twins, memory):
    fleet, _ = twins
    device = fleet["twin-0002"]
    app = device.apps[AD_SILENCE]
    tasks = recorded_tasks(memory.store, AD_SILENCE, 100)
    shaded = {}  # memory screen id → a recorded state whose dump is the system UI's window over the app
    for sid, state in app.states.items():
        if state.package == AD_SILENCE and drawn_package(hierarchy_xml(state)) not in ("", AD_SILENCE):
            shaded.setdefault(screen_of(state, AD_SILENCE, app.version).id, sid)
    task = next(t for t in tasks if t["screen"] in shaded)  # a tap the recording took in the shade
    rt = runtime(twins, memory, "twin-0002")
    device.goto(AD_SILENCE, shaded[task["screen"]])
    xml = hierarchy_xml(app.states[shaded[task["screen"]]])
    located = memory.locate(AD_SILENCE, xml, None, app.states[shaded[task["screen"]]].activity)
    # the dump's nodes are the system UI's, a package memory has no screens of: the app in front holds it
    assert (located.package, located.match, located.screen_id) == (AD_SILENCE, "exact", task["screen"])
    print("PLAN", task, [(s["action"], (s["element"] or {}).get("label"), s["screen_id"]) for s in memory.plan(task["task"], AD_SILENCE, screen_xml=xml, activity=app.states[shaded[task["screen"]]].activity).steps and memory.plan(task["task"], AD_SILENCE, screen_xml=xml, activity=app.states[shaded[task["screen"]]].activity).model_dump()["steps"]])
    result = rt.run(f"tap '{task['label']}' in {AD_SILENCE}", None)  # as the targets name it
    first = result["run"]["steps"][0]  # the target's tap, on the shade itself: not BACK first
    assert first["action"] == "tap" and first["before_xml"] == xml, result["steps"]


def test_a_step_that_failed_from_a_screen_is_not_taken_in_circles(twins, memory):
    """Twins replay round-robin and ignore taps the recording never made, so memory's way from a screen
    can fail on them: the runtime goes round it (another element memory's hints give, or BACK) and
    retries a failed step on the same view from the same screen at most once (on another view its
    locator finds, a list's other row, first); per launch: a stuck run restarts the app once, and what failed
    is forgotten (the app's state may have been why)."""
    fleet, _ = twins
    device = fleet["twin-0003"]
    detours = other_rows = 0
    for task in unseen_targets(memory.store, device.apps[ONELIST], 6):
        rt = runtime(twins, memory, "twin-0003")
        device.goto(ONELIST, task["start"])
        result = rt.run(task["task"], None)
        steps, views = result["steps"], [s["element"] for s in result["run"]["steps"]]
        failures = Counter()
        for before, step in zip(steps, steps[1:]):
            if step["action"] == "stop_app":  # a relaunch: the run starts afresh
                other_rows += len({(s, a) for s, a, _, _ in failures}) < len(failures)
                assert max(failures.values(), default=0) <= 2, steps
                failures = Counter()
            if step["outcome"] != "ok":
                view = views[step["index"]] or {}
                failures[(before["reached_screen"], step["action"], step["label"], tuple(view.get("bounds", ())))] += 1
        other_rows += len({(s, a) for s, a, _, _ in failures}) < len(failures)
        assert max(failures.values(), default=0) <= 2, steps
        detours += sum(1 for (screen, action, label, _) in failures for before, step in zip(steps, steps[1:])
                       if before["reached_screen"] == screen and (step["action"], step["label"]) != (action, label))
    assert detours >= 1 and other_rows >= 1


def test_a_run_without_a_confirmation_stops_before_a_risky_step(twins, memory):
    fleet, server = twins
    server.reset("twin-0003")
    device = adbutils.AdbClient("127.0.0.1", server.port).device("twin-0003")
    rt = Runtime(DeviceDriver(device, "twin-0003"), memory, lambda step: False)
    plan = memory.plan("tap About", ACRYLIC)
    plan.steps[-1].risky = True
    rt.memory = type("Fixed", (), {"plan": lambda self, *a, **k: plan, "locate": memory.locate})()
    result = rt.run("tap About", ACRYLIC)
    assert result["status"] == "stopped" and "not confirmed" in result["reason"]


def test_a_run_trace_goes_into_the_graph_with_its_failures(twins, memory, settings):
    fleet, _ = twins
    task = next(t for t in recorded_tasks(memory.store, ACRYLIC, 8) if t["label"] == "About")
    interfere, teleported = sent_home_after_first_tap(fleet["twin-0002"])

    result = runtime(twins, memory, "twin-0002", progress=interfere).run(task["task"], ACRYLIC)
    trace_id = contribute_locally(settings, memory, result["run"])
    task_id = stable_id("task", "agent", trace_id)
    row = memory.store.read("serve_trace", trace_id=trace_id, task_id=task_id)[0]
    assert row["source"] == "agent" and row["package"] == ACRYLIC and row["task_source"] == "agent"
    assert row["task"] == task["task"]


@pytest.fixture(scope="module")
def server(settings, memory, stack_env, tmp_path_factory):
    """The API on a real socket (uvicorn in a thread of this process, which owns the vectors)
    and one Celery ingest worker process."""
    with api_on_socket(settings, memory) as url:
        workers = WorkerProcesses(1, ["ingest"], tmp_path_factory.mktemp("celery"), env=stack_env).start()
        keys = KeyStore(open_redis(Stack(settings).redis_url()))
        _, key = keys.create("runtime-test", "plan,contribute,correct")
        yield url, key
        workers.stop()


def test_appmem_run_against_the_api_reaches_the_target_and_its_trace_is_ingested(
        server, twins, memory, stack_env, tmp_path):
    url, key = server
    fleet, twin_server = twins
    twin_server.reset("twin-0003")
    task = next(t for t in recorded_tasks(memory.store, ACRYLIC, 8) if t["label"] == "About")
    out = tmp_path / "run.json"
    proc = subprocess.run(
        [sys.executable, "-m", "appmem.cli", "run", "--task", task["task"], "--app", ACRYLIC, "--serial", "twin-0003",
         "--adb-port", str(twin_server.port), "--server", url, "--key", key, "--json", "--trace-out", str(out)],
        capture_output=True, text=True, env=stack_env, cwd=REPO, timeout=120)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["status"] == "done" and result["steps"][-1]["reached_screen"] == task["target"]
    with ApiClient(url, key) as api:
        status = api.wait_trace(result["trace_id"], 60).model_dump()
    assert status["status"] == "done", status
    graph_trace = status["report"]["graph_trace_id"]
    assert memory.store.read("serve_trace", trace_id=graph_trace, task_id="")[0]["source"] == "agent"
    ingested = subprocess.run([sys.executable, "-m", "appmem.cli", "ingest", "run", str(out), "--json"],
                              capture_output=True, text=True, env=stack_env, cwd=REPO, timeout=120)
    assert ingested.returncode == 0, ingested.stderr
    assert json.loads(ingested.stdout)["task"]


def appmem_run(url: str, key: str, port: int, serial: str, task: str, *argv: str) -> list[str]:
    """`appmem run --json` of the task on a twin, against the API."""
    return [sys.executable, "-m", "appmem.cli", "run", "--task", task, "--app", ACRYLIC, "--serial", serial,
            "--adb-port", str(port), "--server", url, "--key", key, "--json", *argv]


def test_a_run_stopped_by_sigterm_prints_its_partial_result_and_sends_its_trace(
        server, twins, memory, stack_env, tmp_path, monkeypatch):
    """SIGTERM while the twin holds the run's first device action (the app's launch) unanswered: the run ends
    after that step, stopped, prints its result and contributes its trace (exit 128 + 15)."""
    import threading

    url, key = server
    fleet, twin_server = twins
    twin_server.reset("twin-0003")
    device = fleet["twin-0003"]
    launched, answer = threading.Event(), threading.Event()
    launch = device.start_app

    def held_launch(package: str) -> bool:  # the twin launches the app, then holds its answer to the run
        started = launch(package)
        launched.set()
        answer.wait(30)
        return started

    monkeypatch.setattr(device, "start_app", held_launch)
    task = next(t for t in recorded_tasks(memory.store, ACRYLIC, 8) if t["label"] == "About")
    out = tmp_path / "run.json"
    proc = subprocess.Popen(appmem_run(url, key, twin_server.port, "twin-0003", task["task"], "--trace-out", str(out)),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
                            env={**stack_env, "APPMEM_HOME": str(tmp_path)})
    assert launched.wait(60), proc.communicate(timeout=60)
    proc.send_signal(signal.SIGTERM)  # the run is mid-step: waiting for its launch to be answered
    time.sleep(0.5)
    answer.set()
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM, stderr
    result = json.loads(stdout)
    assert result["status"] == "stopped" and result["reason"] == "interrupted by SIGTERM after step 1", result
    assert [s["action"] for s in result["steps"]] == ["start_app"]
    assert result["contribution"] == "sent" and result["trace_id"]
    assert json.loads(out.read_text())["status"] == "stopped"


def test_a_refused_trace_that_cannot_be_kept_is_printed_with_the_result(server, twins, memory, settings, stack_env,
                                                                       tmp_path):
    """A plan-only key (the contribution is refused) and an APPMEM_HOME that is a file: the result says the outbox
    could not keep the trace and carries it; exit by the run's status, no traceback."""
    url, _ = server
    _, twin_server = twins
    twin_server.reset("twin-0003")
    _, plan_only = KeyStore(open_redis(Stack(settings).redis_url())).create("plan-only", "plan")
    home = tmp_path / "home"
    home.write_text("a file, not a folder")
    task = next(t for t in recorded_tasks(memory.store, ACRYLIC, 8) if t["label"] == "About")
    done = subprocess.run(appmem_run(url, plan_only, twin_server.port, "twin-0003", task["task"]),
                          capture_output=True, text=True, cwd=REPO, env={**stack_env, "APPMEM_HOME": str(home)},
                          timeout=120)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "done" and result["contribution"].startswith("failed: API answered 403"), result
    assert result["outbox_error"].startswith(f"the outbox {home / 'outbox'} cannot keep the trace")
    assert len(validate_run(result["run"], "test").steps) == len(result["steps"])


def test_a_kept_trace_that_cannot_be_deleted_does_not_stop_the_runs_own(server, twins, memory, stack_env, tmp_path):
    """The outbox holds a trace for the server and nothing in it can be deleted: the kept trace is sent (and said
    to stay), then the run's own."""
    url, key = server
    _, twin_server = twins
    task = next(t for t in recorded_tasks(memory.store, ACRYLIC, 8) if t["label"] == "About")
    outbox = Outbox(tmp_path)
    outbox.keep(url, runtime(twins, memory, "twin-0003").run(task["task"], ACRYLIC)["run"], "API answered 503: busy")
    twin_server.reset("twin-0003")
    if subprocess.run(["chattr", "+i", str(outbox.folder)], capture_output=True).returncode:
        pytest.skip("chattr +i is not supported here")
    try:
        done = subprocess.run(appmem_run(url, key, twin_server.port, "twin-0003", task["task"]),
                              capture_output=True, text=True, cwd=REPO,
                              env={**stack_env, "APPMEM_HOME": str(tmp_path)}, timeout=120)
    finally:
        subprocess.run(["chattr", "-i", str(outbox.folder)], check=True)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["contribution"] == "sent" and result["trace_id"], result
    (kept,) = result["outbox"]
    assert kept["status"] == "sent" and kept["error"].startswith("sent, but its file could not be deleted"), kept


def test_a_step_taken_when_the_server_went_away_stays_in_the_trace(settings, memory, twins):
    """The API stops after the plan's first tap: the second is taken and its screen cannot be located. That
    step is kept in the trace (its dumps, no reached screen) and the run ends failed with memory's reason."""
    two_taps = next(t for t in recorded_tasks(memory.store, ACRYLIC, 8)
                    if len(memory.plan(t["task"], ACRYLIC).steps) >= 2)
    api, stopped = api_on_socket(settings, memory), []
    url = api.__enter__()

    def stop_api_after_the_first_tap(step: dict) -> None:
        if step["action"] == "tap" and not stopped:
            stopped.append(api.__exit__(None, None, None))

    _, server = twins
    server.reset("twin-0001")
    driver = DeviceDriver(adbutils.AdbClient("127.0.0.1", server.port).device("twin-0001"), "twin-0001")
    _, key = KeyStore(open_redis(Stack(settings).redis_url())).create("server-goes-away", "plan")
    with ApiClient(url, key) as client:
        result = Runtime(driver, client, lambda step: True,
                         progress=stop_api_after_the_first_tap).run(two_taps["task"], ACRYLIC)
    steps = result["run"]["steps"]
    assert result["status"] == "failed" and "unreachable" in result["reason"], result["reason"]
    assert [s["action"] for s in steps][-2:] == ["tap", "tap"] and [s["outcome"] for s in steps][-2:] == ["ok", "ok"]
    assert steps[-2]["reached_screen"] is not None and steps[-1]["reached_screen"] is None
    assert steps[-1]["after_xml"] == driver.dump()[2] != steps[-1]["before_xml"]  # where the device is now
    assert len(validate_run(result["run"], "test").steps) == len(steps)


def test_a_run_for_a_short_name_of_several_apps_goes_on_in_one_of_them():
    """`--app mutebox` with io.unseen.mutebox and org.other.mutebox in memory: the plan names both (a plan may
    span them); the run, its re-plans and its trace name one (a comma-joined package was refused)."""
    both = "io.unseen.mutebox,org.other.mutebox"

    def plan(package: str, *step_packages: str) -> Plan:
        return Plan(task="mute it", package=package, source="memory", route="found", llm_calls=0, start=None,
                    alternatives=[], steps=[PlanStep(action="tap", package=p, element=None, input="", slot=None,
                                                     screen_id="s", to_screen="", risky=False, confidence=1.0,
                                                     stale=False) for p in step_packages])
    steps = ("com.android.launcher3", "org.other.mutebox", "org.other.mutebox")
    assert planned_app(plan(both, *steps), "io.unseen.mutebox") == "org.other.mutebox"
    assert planned_app(plan(both), "org.other.mutebox") == "org.other.mutebox"
    assert planned_app(plan(both), "com.android.launcher3") == "io.unseen.mutebox"
    assert planned_app(plan(ACRYLIC), "com.android.launcher3") == ACRYLIC


def test_a_step_on_a_view_that_shows_risky_words_needs_a_confirmation_whatever_memory_says(twins, memory):
    """Memory names an element by its own text, and a menu row's text is in a text view inside it: a plan step
    on acrylic's "Erase everything" row that memory calls safe still asks for a confirmation on the device."""
    fleet, server = twins
    app = fleet["twin-0001"].apps[ACRYLIC]
    menu = next(s for s, state in app.states.items() if any(v.text == "Erase everything" for v in state.views))
    views = {v.index: v for v in app.states[menu].views}
    row = next(v for v in views.values() if v.text == "Erase everything")
    while not row.clickable:
        row = views[row.parent]
    server.reset("twin-0001")
    fleet["twin-0001"].goto(ACRYLIC, menu)
    driver = DeviceDriver(adbutils.AdbClient("127.0.0.1", server.port).device("twin-0001"), "twin-0001")
    here = memory.locate(ACRYLIC, driver.dump()[2]).screen_id
    left, top, right, bottom = row.bounds.as_list()

    class CallsTheRowSafe:  # the real memory, whose plan is one tap on the row, not risky
        def plan(self, task, app, **kw):
            planned = memory.plan("tap About", ACRYLIC)
            step = planned.steps[-1].model_copy(update={"screen_id": here, "risky": False, "to_screen": "",
                                                        "element": planned.steps[-1].element.model_copy(update={
                                                            "text": "", "label": "", "content_desc": "",
                                                            "bounds": row.bounds.as_list(),
                                                            "locators": [f"//*[@bounds='[{left},{top}][{right},{bottom}]']"]})})
            return planned.model_copy(update={"steps": [step], "route": "found"})

        def locate(self, *a, **k):
            return memory.locate(*a, **k)

    asked = []
    result = Runtime(driver, CallsTheRowSafe(), lambda step: asked.append(step) and False).run("erase", ACRYLIC)
    assert result["status"] == "stopped" and "not confirmed" in result["reason"], result
    assert len(asked) == 1 and not [s for s in result["run"]["steps"] if s["action"] == "tap"]


def missed_step_run(memory, twins, task_text: str, step: int) -> tuple[dict, dict]:
    """A real run of the task, and a copy cut at its step `step`, which did nothing (its expected screen missed)."""
    result = runtime(twins, memory, "twin-0001").run(task_text, ACRYLIC)
    run = result["run"]
    failed = dict(run["steps"][step], after_xml=run["steps"][step]["before_xml"],
                  after_activity=run["steps"][step]["before_activity"], outcome="no_effect")
    return run, {**run, "status": "failed", "steps": run["steps"][:step] + [failed]}


def failed_edge(memory, run: dict) -> dict:
    """serve_edge's parameters for the edge the run's last step was expected to take."""
    step = run_trace(validate_run(run, "test")).trace.steps[-1]
    source = memory.locate(ACRYLIC, run["steps"][-1]["before_xml"], None, run["steps"][-1]["before_activity"]).model_dump()
    return {"source": source["screen_id"],
            "key": stable_id("transition", source["screen_id"], step.action.signature, step.expected_screen)}


def test_a_contribution_is_ingested_and_changes_the_next_plan(server, twins, memory, settings):
    """From a screen with equally short ways to the target, the plan takes the most reliable one; a
    contributed run whose step on that way did nothing makes the next plan take another once three
    distinct keys report it."""
    url, key = server

    def fork_of(task: str) -> str | None:
        """The first screen of the task's plan where other elements lead to the same next screen."""
        graph = memory.planner().graph([ACRYLIC])
        for step in memory.plan(task, ACRYLIC).model_dump()["steps"]:
            if len({e.element_id for e in graph.edges.get(step["screen_id"], []) if e.target == step["to_screen"]}) > 1:
                return step["screen_id"]
        return None
    task, fork = next((t["task"], f) for t in recorded_tasks(memory.store, ACRYLIC, 30) if (f := fork_of(t["task"])))
    before = memory.plan(task, ACRYLIC, screen_id=fork).model_dump()
    run, _ = missed_step_run(memory, twins, task, 0)
    at_fork = next(k for k, s in enumerate(run["steps"]) if k and run["steps"][k - 1]["reached_screen"] == fork)
    _, failing = missed_step_run(memory, twins, task, at_fork)
    assert failing["steps"][-1]["element"]["text"] == before["steps"][0]["element"]["text"]
    keys = KeyStore(open_redis(Stack(settings).redis_url()))
    with ApiClient(url, key) as api:
        accepted = api.contribute({**failing, "started": "2026-01-01T00:00:00Z"}).model_dump()
        assert accepted["status_url"].endswith(accepted["trace_id"])
        status = api.wait_trace(accepted["trace_id"], 60).model_dump()
    assert status["status"] == "done" and status["report"]["missed_edges"] == 1, status
    assert memory.store.read("serve_edge", **failed_edge(memory, failing))[0]["failures"] == 1
    # one key's report changes no plan (no single key may steer what others get) ...
    assert memory.plan(task, ACRYLIC, screen_id=fork).model_dump()["steps"] == before["steps"]
    for n in range(2):  # ... the same failure reported by three distinct keys does (APPMEM_TRUST_QUORUM)
        with ApiClient(url, keys.create(f"witness-{n}", "contribute")[1]) as api:
            again = api.wait_trace(api.contribute({**failing, "started": f"2026-01-0{n + 2}T00:00:00Z"}).trace_id, 60)
        assert again.status == "done", again
    after = memory.plan(task, ACRYLIC, screen_id=fork).model_dump()
    assert after["steps"][0]["element"]["id"] != before["steps"][0]["element"]["id"]
    assert after["steps"][-1]["element"]["id"] == before["steps"][-1]["element"]["id"]


def test_one_keys_flood_counts_as_one_contributor(server, twins, memory, settings):
    url, _ = server
    keys = KeyStore(open_redis(Stack(settings).redis_url()))
    _, flooder = keys.create("flood", "contribute")
    _, run = missed_step_run(memory, twins, "tap Color palette", 2)
    edge = failed_edge(memory, run)
    with ApiClient(url, flooder) as api:
        ids = [api.contribute({**run, "started": f"2026-02-0{i}T00:00:00Z"}).trace_id for i in range(1, 6)]
        statuses = [api.wait_trace(i, 60).status for i in ids]
    assert statuses == ["done"] * 5
    counts = memory.store.read("serve_edge", source=edge["source"], key=edge["key"])[0]
    # the edge's contributors: the earlier test's key (its runs took this edge fine) and the flooder
    assert counts["failures"] >= 5 and counts["contributors"] >= 2
    assert counts["crowd_failures"] == pytest.approx(1.0)  # five failures of one key: one voice
    raw = (counts["successes"] + 1) / (counts["observations"] + 2)
    assert crowd_reliability(counts) > raw


def test_a_droidbot_tarball_and_a_correction_are_ingested(server, twins, memory, tmp_path):
    import tarfile

    url, key = server
    archive = tmp_path / "adfree.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(DROIDBOT / "ch.abertschi.adfree", arcname="ch.abertschi.adfree")
    run, _ = missed_step_run(memory, twins, "tap Color palette", 0)
    fix = run["steps"][2]  # a person says: on this screen, this tap is the way
    correction = {"task": "tap Color palette", "package": ACRYLIC, "app_version": run["app_version"],
                  "action": fix["action"], "element": fix["element"], "input": "", "before_xml": fix["before_xml"],
                  "after_xml": fix["after_xml"], "before_activity": fix["before_activity"],
                  "after_activity": fix["after_activity"]}
    with ApiClient(url, key) as api:
        tarball = api.wait_trace(api.contribute_droidbot(archive).trace_id, 120).model_dump()
        corrected = api.wait_trace(api.correct(correction).trace_id, 60).model_dump()
    assert tarball["status"] == "done" and tarball["report"]["transitions"] > 0, tarball
    # stored, but one key's report lists no app to others (a crawl, an import or a quorum of keys does)
    assert "ch.abertschi.adfree" in [a["package"] for a in memory.store.stats(every=True)]
    assert "ch.abertschi.adfree" not in [a["package"] for a in memory.apps()]
    assert corrected["status"] == "done" and corrected["report"]["task"], corrected


STARTS_TRIED = 8  # other states a task is planned from, when its own start gives no such plan


class CountingPlans:
    """The real memory, counting the plans the runtime asks it for."""

    def __init__(self, memory):
        self.memory, self.plans = memory, 0

    def plan(self, *args, **kwargs):
        self.plans += 1
        return self.memory.plan(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.memory, name)


def test_a_step_that_lands_on_a_look_alike_showing_the_next_element_goes_on_without_asking_again(twins, memory):
    """Memory splits look-alike screens by content (another list's rows): when a step lands on another screen
    than expected, but the plan's next element is on it, the run goes on with the plan (one re-plan of the
    budget, no new plan); without re-planning it stops there."""
    fleet, _ = twins
    device = fleet["twin-0002"]
    found = None
    for package in (ONELIST, ACRYLIC, AD_SILENCE):  # onelist: a list screen per list
        app = device.apps[package]
        dumps = {sid: hierarchy_xml(s) for sid, s in app.states.items() if s.package == package}
        # which task and start have such a plan depends on the routes: each task from its own start, then from
        # the app's other states (a window over the app, the shade, is dismissed before any plan: not those)
        starts = sorted((sid for sid, xml in dumps.items() if drawn_package(xml) in ("", package)),
                        key=lambda sid: stable_id("start", sid))
        for task in unseen_targets(memory.store, app, 30):
            for start_id in [task["start"], *starts[:STARTS_TRIED]]:
                start = app.states[start_id]
                steps = memory.plan(task["task"], None, screen_xml=dumps[start_id],
                                    activity=start.activity).model_dump()["steps"]
                if len(steps) < 2 or steps[0]["action"] != "tap" or not steps[1]["element"]:
                    continue
                second = steps[1]["element"]
                alike = [sid for sid, xml in dumps.items() if screen_of(app.states[sid], package, app.version).id
                         not in (steps[0]["to_screen"], steps[0]["screen_id"], steps[1]["to_screen"])
                         and (g := ground(second, xml))
                         and shows(second, node_at(xml, g[0]))]
                if alike:
                    found = package, {**task, "start": start_id}, steps, alike[0]
                    break
            if found:
                break
        if found:
            break
    assert found, "no recorded task has a look-alike screen showing its second element"
    package, task, steps, alike = found
    app, tap = device.apps[package], device.tap
    for budget, done in ((4, True), (0, False)):
        counting = CountingPlans(memory)
        redirected = []

        def tap_to_look_alike(x: int, y: int) -> None:  # the plan's first tap lands on the look-alike
            tap(x, y)
            state = app.states.get(device.foreground.state_id) if device.app is app else None
            if state and not redirected and screen_of(state, package, app.version).id == steps[0]["to_screen"]:
                redirected.append(counting.plans)
                device.goto(package, alike)

        device.tap = tap_to_look_alike
        try:
            plans_at = []  # plans asked for when each step was taken
            rt = runtime(twins, memory, "twin-0002", max_replans=budget,
                         progress=lambda step: plans_at.append(counting.plans))
            rt.memory = counting
            device.goto(package, task["start"])
            result = rt.run(task["task"], None)
        finally:
            del device.tap
        assert redirected, result["steps"]
        missed = next(i for i, s in enumerate(result["steps"]) if s["outcome"] != "ok")
        if done:
            taken = result["steps"][missed + 1]
            assert plans_at[missed + 1] == redirected[0], result["steps"]  # no plan asked for after the look-alike
            assert taken["action"] == steps[1]["action"] and taken["expected_screen"] == steps[1]["to_screen"]
            assert result["replans"] >= 1
        else:
            assert result["status"] == "failed" and len(result["steps"]) == missed + 1, result["steps"]


def test_a_recorded_tap_that_left_the_app_for_the_launcher_is_done_and_reached_there(twins, memory):
    """A tap whose recorded outcome is the home screen: the run is done once it is taken, as planned, and the judge
    of bench/runtime.py counts the twin's launcher (which stands for every recorded home screen) as reached."""
    fleet, server = twins
    device = fleet["twin-0003"]
    task = next(t for t in unseen_targets(memory.store, device.apps[AD_SILENCE], 8) if t["home"])
    rt = runtime(twins, memory, "twin-0003")
    device.goto(AD_SILENCE, task["start"])
    result = rt.run(task["task"], None)
    package, activity, xml = rt.driver.dump()
    # the app left for the launcher as memory saw this tap do: the step went as planned (no failure vote on
    # its edge when the trace is ingested), not a crash
    assert result["status"] == "done" and result["steps"][-1]["outcome"] == "ok", result["steps"][-1]
    assert package == LAUNCHER_PACKAGE and twin_reached(task, package, activity, xml, device.apps[AD_SILENCE].version)
    assert not twin_reached({**task, "home": False}, package, activity, xml, device.apps[AD_SILENCE].version)


def test_a_row_that_led_elsewhere_is_backed_out_of_and_the_step_taken_on_another_row(memory):
    """Memory keeps a list's rows as one element (their texts are data): when the row a step took led to
    another screen than expected, the runtime goes BACK and takes the step again on another row its
    locator finds. On onelist, replayed in the `similar` mode (a twin is a simulator), this reaches
    targets a re-plan alone did not (bench/runtime.py)."""
    fleet = build_fleet([DROIDBOT / ONELIST], 1, replay=SIMILAR)
    device = fleet["twin-0001"]
    retried = reached_after_retry = 0
    with TwinServer(fleet) as server:
        for task in unseen_targets(memory.store, device.apps[ONELIST], 6):
            rt = runtime((fleet, server), memory, "twin-0001")
            device.goto(ONELIST, task["start"])
            result = rt.run(task["task"], None)
            steps, views = result["steps"], result["run"]["steps"]
            retry = [i for i in range(len(steps) - 2) if steps[i]["outcome"] == "missed"
                     and steps[i + 1]["action"] == "back" and steps[i + 1]["outcome"] == "ok"
                     and steps[i + 2]["action"] == steps[i]["action"]
                     and views[i + 2]["element"]["bounds"] != views[i]["element"]["bounds"]]
            retried += bool(retry)
            package, activity, xml = rt.driver.dump()
            reached_after_retry += bool(retry) and twin_reached(task, package, activity, xml, device.apps[ONELIST].version)
    assert retried >= 1 and reached_after_retry >= 1
