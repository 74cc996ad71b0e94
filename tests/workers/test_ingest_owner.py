"""Contributions against real Celery ingest workers: a key purged while its contribution is being ingested
leaves nothing and stays failed; a contribution whose whole worker was killed is ingested by the next worker
(workers/ingest_owner.py), within the redelivery limit, and held dead past it.

The waits bound what the product bounds: a worker taking a queued contribution, the next worker taking over one
whose owner died (its lease, LEASE_TTL_S, then a reaper round, REAP_EVERY_S). The length of an ingest is the
machine's: an ingest is waited for while it writes chunks, and fails the test only when it writes none for
STALL_S."""
from __future__ import annotations

import time

import pytest

from appmem.keys import KeyStore
from appmem.ingest.contributions import INGEST_QUEUE, INGEST_TASK, MAX_DELIVERIES, PREFIX, Contributions, pseudonym
from appmem.ingest.droidbot import read_recording, recording_trace
from appmem.ingest.purge import purge_contributor
from appmem.ingest.tarball import clean_archive
from tests.api.conftest import tarball
from tests.conftest import DROIDBOT
from appmem.workers.celery_app import create_app
from appmem.workers.crawl import WorkerProcesses
from appmem.workers.ingest_owner import LEASE_TTL_S, REAP_EVERY_S, owner_key

LAUNCHER = "de.szalkowski.activitylauncher"
WORKER_START_S = 120  # a Celery worker process starting: imports, forking its pool child
STALL_S = 120  # an ingest that wrote no chunk for this long is stuck, however slow the machine
TAKEOVER_S = WORKER_START_S + LEASE_TTL_S + 2 * REAP_EVERY_S  # the next worker starts, the lease expires, a reap


@pytest.fixture(scope="module")
def body() -> bytes:
    """The largest recording (activitylauncher: 245 screens, 828 steps) as the API parks it: at one step a chunk
    its ingest takes seconds (6.5 s on one core), long enough to purge it or kill its worker half-way."""
    folder = DROIDBOT / LAUNCHER
    return clean_archive(tarball({f"{LAUNCHER}/{p.relative_to(folder)}": p.read_bytes()
                                  for p in folder.rglob("*.json") if p.is_file()}
                                 | {f"{LAUNCHER}/utg.js": (folder / "utg.js").read_bytes()}))


@pytest.fixture
def workers(stack_env, tmp_path):
    """A factory of Celery ingest workers that write in small chunks (a long ingest); all stopped after."""
    started = []

    def start() -> WorkerProcesses:
        started.append(WorkerProcesses(1, [INGEST_QUEUE], tmp_path / f"celery{len(started)}",
                                       env={**stack_env, "APPMEM_INGEST_CHUNK_STEPS": "1"}).start())
        return started[-1]

    yield start
    for w in started:
        w.stop()


def contribute(settings, redis_client, body: bytes, name: str) -> tuple[str, str]:
    """(key id, contribution id): a droidbot contribution parked and queued as the API does."""
    key = KeyStore(redis_client).create(name, "contribute")[0]
    cid = Contributions(redis_client).create("droidbot", key.id, body)
    create_app(settings).send_task(INGEST_TASK, args=[cid], queue=INGEST_QUEUE)
    return key.id, cid


def wait(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := condition():
            return value
        time.sleep(0.2)
    pytest.fail(f"not within {timeout} s: {what}")


def wait_while_writing(store, trace_id: str, condition, what: str):
    """Wait for `condition` as long as chunks of the trace keep reaching the graph: an ingest's length is the
    machine's speed (828 one-step chunks: 6.5 s on an idle core, several times that on a loaded machine)."""
    written, since = -1, time.monotonic()
    while not (value := condition()):
        now = len(store.read("explore_progress", trace_id=trace_id)[0]["chunks"])
        if now != written:
            written, since = now, time.monotonic()
        elif time.monotonic() - since > STALL_S:
            pytest.fail(f"no chunk written for {STALL_S} s ({written} in the graph): {what}")
        time.sleep(0.5)
    return value


def contributed_trace_id(redis_client, key_id: str) -> str:
    """The id the ingest gives the recording a key contributed (its device is the key's pseudonym)."""
    device = pseudonym(redis_client, f"{key_id}:droidbot")
    return recording_trace(read_recording(DROIDBOT / LAUNCHER), device=device).id


def test_a_purge_during_an_ingest_leaves_nothing_of_the_key_and_the_contribution_failed(
        settings, store, redis_client, body, workers):
    counts = lambda: store.read("crowd_counts")[0]  # noqa: E731
    board = Contributions(redis_client)
    workers()
    before = counts()
    for attempt in range(3):  # the purge must land while the ingest writes; a slow machine may let the ingest win
        key_id, cid = contribute(settings, redis_client, body, f"purged-mid-ingest-{attempt}")
        wait(lambda: redis_client.exists(owner_key(cid)), WORKER_START_S, "a worker takes the contribution")
        wait(lambda: counts()["traces"] > before["traces"], STALL_S, "its first chunks are written")
        report = purge_contributor(store, redis_client, key_id, settings.trust_quorum)
        assert report["contributions"] == 1
        wait_while_writing(store, contributed_trace_id(redis_client, key_id),
                           lambda: not redis_client.exists(owner_key(cid)), "the worker stops ingesting")
        assert counts() == before  # whichever came first, nothing of the key is left
        if board.status(cid)["status"] == "failed":  # the purge came first: it is never overwritten by the ingest
            assert board.status(cid)["reason"] == "purged with its contributor"
            return
        assert board.status(cid)["status"] == "done"  # the ingest had ended: the purge took all of it back
    pytest.fail("every ingest ended before its purge: the mid-ingest purge was never exercised")


def test_a_contribution_whose_worker_was_killed_is_ingested_by_the_next_one_within_the_limit(
        settings, store, redis_client, body, workers):
    board = Contributions(redis_client)
    first = workers()
    key_id, cid = contribute(settings, redis_client, body, "worker-killed")
    wait(lambda: redis_client.hget(PREFIX + cid, "deliveries") == "1", WORKER_START_S, "a worker takes it")
    first.kill(0)  # the whole worker: its message stays unacknowledged for the 1 h visibility timeout
    assert board.status(cid)["status"] == "pending"
    second = workers()
    wait(lambda: redis_client.hget(PREFIX + cid, "deliveries") == "2", TAKEOVER_S, "the next worker takes it over")
    trace = contributed_trace_id(redis_client, key_id)
    wait_while_writing(store, trace, lambda: board.status(cid)["status"] != "pending", "the next worker ingests it")
    assert board.status(cid)["status"] == "done", board.status(cid)
    assert board.status(cid)["report"]["graph_trace_id"] == trace
    assert len(store.read("explore_progress", trace_id=trace)[0]["chunks"]) == board.status(cid)["report"]["chunks"]
    assert redis_client.hget(PREFIX + cid, "deliveries") == "2"
    # one whose worker dies on its last allowed delivery is held dead with its body, never left pending
    spent_key, spent = contribute(settings, redis_client, body, "worker-killed-again")
    wait(lambda: redis_client.hget(PREFIX + spent, "deliveries") == "1", WORKER_START_S,
         "a worker takes the second contribution")
    second.kill(0)
    redis_client.hset(PREFIX + spent, "deliveries", MAX_DELIVERIES)
    workers()
    wait(lambda: board.status(spent)["status"] != "pending", TAKEOVER_S, "the second contribution ends")
    assert board.status(spent)["status"] == "dead" and "deliveries" in board.status(spent)["reason"]
    assert redis_client.exists(PREFIX + spent + ":body")
    for key in (key_id, spent_key):
        purge_contributor(store, redis_client, key, settings.trust_quorum)
