"""The fleet under faults: real Celery worker processes, real Redis, the real graph, app twins over adb.

Parallel frontier workers split the work; a worker killed with SIGKILL, a device
that stops answering, and a Redis restart mid-crawl all end with the job done
elsewhere (or resumed), nothing lost and nothing duplicated in the graph.
Budgets are small and lease TTLs short so the file runs in a couple of minutes.
"""
from __future__ import annotations

import time
import uuid

import pytest

from appmem.stack import Stack
from tests.conftest import DROIDBOT
from appmem.graph.vocabulary import is_launcher
from appmem.workers.celery_app import create_app
from appmem.workers.crawl import WorkerProcesses, enqueue, plan_jobs, wait_jobs
from appmem.workers.devices import DevicePool, DeviceRecord, JobBoard, key
from appmem.workers.jobspec import trace_id
from appmem.twins.adb_server import TwinServer
from appmem.twins.device import build_fleet

LAUNCHER_APP = DROIDBOT / "de.szalkowski.activitylauncher"
ACRYLIC = DROIDBOT / "anupam.acrylic"


@pytest.fixture(scope="module")
def celery(settings):
    return create_app(settings)


@pytest.fixture
def fleet_of(redis_client):
    """fleet_of(folders, n) → (devices, server, queue): twins served and registered on a fresh queue."""
    servers = []

    def make(folders, n):
        devices = build_fleet(folders, n)
        server = TwinServer(devices)
        port = server.start()
        servers.append(server)
        queue = f"test-{uuid.uuid4().hex[:8]}"
        for serial in devices:
            DevicePool(redis_client).register(DeviceRecord(serial, "127.0.0.1", port, queue))
        return devices, server, queue

    yield make
    for server in servers:
        server.stop()


@pytest.fixture
def workers_for(stack_env, tmp_path):
    started = []

    def make(count, queue):
        w = WorkerProcesses(count, [queue], tmp_path / queue, env=stack_env).start()
        started.append(w)
        return w

    yield make
    for w in started:
        w.stop()


def wait_until(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def run_states(store, records) -> set[str]:
    traces = [trace_id(j) for j in records]
    return {r["state_id"] for r in store.read("explore_run_states", trace_ids=traces) if not is_launcher(r["package"])}


def assert_clean_graph(store):
    integrity = store.read("explore_integrity")[0]
    assert integrity["duplicate_nodes"] == 0, integrity
    assert integrity["duplicate_relationships"] == 0, integrity


def job_opts(queue, **kw):
    return {"queue": queue, "chunk_steps": 20, "lease_ttl_s": 3.0, "adb_timeout_s": 5.0, "device_wait_s": 30.0,
            **kw}


def test_two_frontier_workers_split_the_app_better_than_two_independent_ones(
        celery, empty_graph, redis_client, fleet_of, workers_for):
    _, _, queue = fleet_of([LAUNCHER_APP], 2)
    workers_for(2, queue)
    found = {}
    for policy in ("frontier", "dfs"):  # dfs workers do not share anything (DroidBot on two devices)
        run = f"{policy}-{uuid.uuid4().hex[:6]}"
        specs = plan_jobs(run, ["de.szalkowski.activitylauncher"], policy, 120, 60, **job_opts(queue))
        assert len(specs) == 2
        enqueue(celery, redis_client, specs)
        records = wait_jobs(celery, redis_client, run, 120)
        assert all(r["status"] == "done" for r in records.values()), records
        assert sum(r["actions"] for r in records.values()) == 120
        found[policy] = len(run_states(empty_graph, records))
    assert found["frontier"] > found["dfs"], found
    assert_clean_graph(empty_graph)


def test_a_worker_killed_mid_job_hands_the_job_over_without_loss_or_duplicates(
        celery, empty_graph, redis_client, fleet_of, workers_for):
    _, _, queue = fleet_of([ACRYLIC], 2)
    workers = workers_for(2, queue)
    [spec] = plan_jobs("kill", ["anupam.acrylic"], "frontier", 160, 500, **job_opts(queue))
    enqueue(celery, redis_client, [spec])
    board = JobBoard(redis_client)
    wait_until(lambda: board.get(spec.job_id)["actions"] >= 40, 60, "two chunks written")
    owner = redis_client.get(board.job_lease_name(spec.job_id))
    # 120 actions are left (about 11 s): the job is still under way, or this test's premise failed
    assert owner is not None and board.get(spec.job_id)["status"] == "running", board.get(spec.job_id)
    child_pid = int(owner.split("/")[0].rsplit("-", 1)[1])
    with open(f"/proc/{child_pid}/stat") as fh:
        main_pid = int(fh.read().split(") ", 1)[1].split()[1])
    victim = next(i for i, p in enumerate(workers.procs) if p.pid == main_pid)
    workers.kill(victim)  # SIGKILL to the worker's main process and its pool child
    records = wait_jobs(celery, redis_client, "kill", 120)
    record = records[spec.job_id]
    assert record["status"] == "done", record
    assert record["worker"] != owner.split("/")[0] and record["attempts"] >= 2
    counts = empty_graph.read("explore_trace_counts", trace_id=trace_id(spec.job_id))[0]
    assert sorted(counts["chunks"]) == list(range(8))
    assert counts["observations"] == 160  # no chunk written twice, none lost
    assert_clean_graph(empty_graph)


def test_a_device_that_stops_answering_loses_its_lease_and_the_job_moves(
        celery, empty_graph, redis_client, fleet_of, workers_for):
    devices, server, queue = fleet_of([ACRYLIC], 2)
    workers_for(2, queue)
    # The adb timeout is longer than the lease TTL: the lease expires while the call still hangs.
    [spec] = plan_jobs("hang", ["anupam.acrylic"], "frontier", 100, 500,
                       **job_opts(queue, lease_ttl_s=2.0, adb_timeout_s=8.0))
    enqueue(celery, redis_client, [spec])
    board = JobBoard(redis_client)
    wait_until(lambda: board.get(spec.job_id)["actions"] >= 20, 60, "a chunk written")
    device_id = board.get(spec.job_id)["device"]
    server.set_unresponsive(device_id.rsplit("/", 1)[1])
    hung_at = time.monotonic()
    wait_until(lambda: not redis_client.exists(key("device", device_id, "lease")), 6, "the device lease to expire")
    assert time.monotonic() - hung_at < 8.0  # before the hanging adb call gives up
    # the stall quarantined it as its lease lapsed (for 10 TTLs: checked now, not after the rest of the crawl)
    assert redis_client.exists(key("device", device_id, "quarantine"))
    records = wait_jobs(celery, redis_client, "hang", 120)
    record = records[spec.job_id]
    assert record["status"] == "done" and record["device"] != device_id, record
    counts = empty_graph.read("explore_trace_counts", trace_id=trace_id(spec.job_id))[0]
    assert sorted(counts["chunks"]) == list(range(5)) and counts["observations"] == 100
    assert_clean_graph(empty_graph)


def test_a_redis_restart_mid_crawl_loses_nothing_already_ingested(
        settings, celery, empty_graph, redis_client, fleet_of, workers_for):
    _, _, queue = fleet_of([ACRYLIC], 1)
    workers_for(1, queue)
    [spec] = plan_jobs("restart", ["anupam.acrylic"], "frontier", 200, 500, **job_opts(queue, lease_ttl_s=60.0))
    enqueue(celery, redis_client, [spec])
    board = JobBoard(redis_client)
    wait_until(lambda: board.get(spec.job_id)["actions"] >= 40, 60, "two chunks written")
    before = set(empty_graph.read("explore_trace_counts", trace_id=trace_id(spec.job_id))[0]["chunks"])
    stack = Stack(settings)
    assert stack.redis.stop()
    time.sleep(1.0)
    stack.up()  # the same server again, its append-only file reloaded
    records = wait_jobs(celery, redis_client, "restart", 120)
    assert records[spec.job_id]["status"] == "done", records
    counts = empty_graph.read("explore_trace_counts", trace_id=trace_id(spec.job_id))[0]
    assert before <= set(counts["chunks"]) and sorted(counts["chunks"]) == list(range(10))
    assert counts["observations"] == 200
    assert_clean_graph(empty_graph)


def test_the_crawl_command_runs_twins_on_its_own_workers_and_gives_its_devices_back(stack_env, redis_client):
    """`appmem crawl --twins`: its twins served, registered on its queue, crawled by the worker processes it
    starts, summarised as JSON; afterwards no device of its queue is left in the pool."""
    import json
    import subprocess
    import sys

    queue = f"cli-{uuid.uuid4().hex[:8]}"
    done = subprocess.run([sys.executable, "-m", "appmem.cli", "crawl", "--twins", str(ACRYLIC), "--devices", "2",
                           "--budget", "12", "--queue", queue, "--json"], capture_output=True, text=True,
                          env=stack_env, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout)
    assert summary["devices"] == 2 and summary["totals"]["failed_jobs"] == 0
    assert summary["apps"]["anupam.acrylic"]["actions"] == 12
    assert summary["apps"]["anupam.acrylic"]["recorded_states"] > 0
    assert DevicePool(redis_client).devices(queue) == []


def test_the_crawl_command_on_an_adb_server_needs_its_apps(stack_env):
    import json
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "appmem.cli", "crawl", "--adb-host", "127.0.0.1", "--adb-port", "1",
                           "--json"], capture_output=True, text=True, env=stack_env, timeout=300)
    assert done.returncode == 2
    assert json.loads(done.stdout) == {"error": "InvalidInput", "detail": "--apps: PKG... is required with --adb-host"}
