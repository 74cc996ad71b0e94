"""Issue 17's interfaces as a new user calls them, each its own `appmem` process, on the real stack: a key
from `appmem keys create --rate-limit --json`, a refused run's trace kept in the outbox and sent by the next
run, contributions ingested by `appmem worker --queues ingest` (the
only consumer of the queue here), `appmem run --server --key --yes --json` on a twin (a simulator replaying a
DroidBot recording), `GET /v1/traces/{id}`, `appmem plan --screen-xml` without `--app`, and
`appmem keys purge NAME --json` restoring every graph count."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.api.conftest import recorded_app_memory
from tests.conftest import DROIDBOT, REPO, api_on_socket
from appmem.twins.adb_server import TwinServer
from appmem.twins.device import build_fleet

ACRYLIC = "anupam.acrylic"
LAUNCHER = "com.android.launcher3"  # the twin's home screen: the recording starts there
TASK = f"tap 'About' in {ACRYLIC}"


def appmem(env: dict, *args: str, timeout: int = 180) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "appmem.cli", *args], capture_output=True, text=True, env=env,
                          cwd=REPO, timeout=timeout)


@pytest.fixture(scope="module")
def memory(store, settings):
    memory = recorded_app_memory(store, settings, ACRYLIC, also=(LAUNCHER,))
    yield memory
    memory.close()


@pytest.fixture(scope="module")
def service(settings, memory, stack_env, tmp_path_factory):
    """The API on a socket, `appmem worker --queues ingest` in its own process, one twin device."""
    log = (tmp_path_factory.mktemp("worker") / "worker.log").open("w")
    worker = subprocess.Popen([sys.executable, "-m", "appmem.cli", "worker", "--queues", "ingest"], cwd=REPO,
                              env=stack_env, stdout=log, stderr=subprocess.STDOUT)
    try:
        with api_on_socket(settings, memory) as url, TwinServer(build_fleet([DROIDBOT / ACRYLIC], 1)) as twins:
            yield url, twins.port
    finally:
        worker.terminate()
        worker.wait(30)
        log.close()


def trace_status(url: str, key: str, trace_id: str, seconds: float = 120) -> dict:
    deadline = time.monotonic() + seconds
    while True:
        response = httpx.get(f"{url}/v1/traces/{trace_id}", headers={"Authorization": f"Bearer {key}"})
        if response.status_code == 429:  # the run's own requests and these polls share the key's rate limit
            time.sleep(float(response.headers.get("Retry-After", 1)))
            continue
        assert response.status_code == 200, response.text
        status = response.json()
        if status["status"] != "pending" or time.monotonic() > deadline:
            return status
        time.sleep(0.2)


def test_a_new_users_run_is_ingested_by_the_worker_command_and_its_purge_restores_the_graph(
        service, memory, stack_env, tmp_path):
    url, adb_port = service
    counts = lambda: memory.store.read("crowd_counts")[0]  # noqa: E731
    before = counts()
    created = appmem(stack_env, "keys", "create", "--name", "new-user", "--scopes", "plan,contribute",
                     "--rate-limit", "7", "--json")
    assert created.returncode == 0, created.stderr
    key = json.loads(created.stdout)
    assert key["rate_limit"] == 7 and key["scopes"] == ["plan", "contribute"] and key["key"].startswith("am_")

    # a run whose key may not contribute: its trace is kept in the outbox, and the next run sends it
    plan_only = json.loads(appmem(stack_env, "keys", "create", "--name", "plan-only", "--scopes", "plan",
                                  "--json").stdout)["key"]
    refused = json.loads(appmem(stack_env, "run", "--task", TASK, "--serial", "twin-0001", "--adb-port",
                                str(adb_port), "--server", url, "--key", plan_only, "--yes", "--json",
                                "--trace-out", str(tmp_path / "refused.json")).stdout)
    assert refused["status"] == "done" and refused["contribution"].startswith("failed: API answered 403")
    outbox = Path(stack_env["APPMEM_HOME"]) / "outbox"
    assert len(list(outbox.glob("*.json"))) == 1

    ran = appmem(stack_env, "run", "--task", TASK, "--serial", "twin-0001", "--adb-port", str(adb_port),
                 "--server", url, "--key", key["key"], "--yes", "--trace-out", str(tmp_path / "trace.json"), "--json")
    assert ran.returncode == 0, ran.stderr
    result = json.loads(ran.stdout)
    assert result["status"] == "done" and result["contribution"] == "sent" and result["trace_id"], result
    assert [o["status"] for o in result["outbox"]] == ["sent"] and not list(outbox.glob("*.json"))
    assert trace_status(url, key["key"], result["outbox"][0]["trace_id"])["status"] == "done"
    assert json.loads((tmp_path / "trace.json").read_text())["format"] == "appmem-run/1"
    status = trace_status(url, key["key"], result["trace_id"])
    assert status["status"] == "done" and status["report"]["package"] == ACRYLIC, status
    assert counts()["traces"] == before["traces"] + 2

    # Without --app from a dump: the app the dump shows, or, from the launcher's home screen where the run
    # started (memory knows no way to the task in the launcher), the task's app, entered from there.
    first = json.loads((tmp_path / "refused.json").read_text())["steps"][0]  # on a fresh twin device
    last = json.loads((tmp_path / "trace.json").read_text())["steps"][-1]
    for dump, shows in ((first["before_xml"], LAUNCHER), (last["before_xml"], ACRYLIC)):
        assert f'package="{shows}"' in dump
        (tmp_path / "screen.xml").write_text(dump)
        planned = appmem({k: v for k, v in stack_env.items() if k not in ("APPMEM_SERVER", "APPMEM_KEY")},
                         "plan", "--task", "tap About", "--screen-xml", str(tmp_path / "screen.xml"), "--json")
        assert planned.returncode == 0, planned.stderr
        plan = json.loads(planned.stdout)
        assert plan["package"] == ACRYLIC and plan["route"] == "found", json.dumps({k: plan[k] for k in ("package", "route", "start", "source", "app_choice") if k in plan})
        assert plan["steps"][-1]["element"]["label"] == "About"

    purged = appmem(stack_env, "keys", "purge", "new-user", "--json")
    assert purged.returncode == 0, purged.stderr
    assert json.loads(purged.stdout)["key"]["revoked"] and counts() == before
    assert httpx.get(f"{url}/v1/apps", headers={"Authorization": f"Bearer {key['key']}"}).status_code == 401

