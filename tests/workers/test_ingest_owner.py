"""Contributions against real Celery ingest workers: a key purged while its contribution is being ingested
leaves nothing and stays failed; a contribution whose whole worker was killed is ingested by the next worker
(workers/ingest_owner.py), within the redelivery limit."""
from __future__ import annotations

import time

import pytest

from appmem.keys import KeyStore
from appmem.ingest.contributions import INGEST_QUEUE, INGEST_TASK, MAX_DELIVERIES, PREFIX, Contributions
from appmem.ingest.purge import purge_contributor
from appmem.ingest.tarball import clean_archive
from tests.api.conftest import tarball
from tests.conftest import DROIDBOT
from appmem.workers.celery_app import create_app
from appmem.workers.crawl import WorkerProcesses
from appmem.workers.ingest_owner import owner_key

LAUNCHER = "de.szalkowski.activitylauncher"


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


def test_a_purge_during_an_ingest_leaves_nothing_of_the_key_and_the_contribution_failed(
        settings, store, redis_client, body, workers):
    counts = lambda: store.read("crowd_counts")[0]  # noqa: E731
    board = Contributions(redis_client)
    workers()
    before = counts()
    for attempt in range(3):  # the purge must land while the ingest writes; a slow machine may let the ingest win
        key_id, cid = contribute(settings, redis_client, body, f"purged-mid-ingest-{attempt}")
        wait(lambda: redis_client.exists(owner_key(cid)), 60, "a worker takes the contribution")
        wait(lambda: counts()["traces"] > before["traces"], 60, "its first chunks are written")
        report = purge_contributor(store, redis_client, key_id, settings.trust_quorum)
        assert report["contributions"] == 1
        wait(lambda: not redis_client.exists(owner_key(cid)), 120, "the worker stops ingesting")
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
    wait(lambda: redis_client.exists(owner_key(cid)), 60, "a worker takes the contribution")
    first.kill(0)  # the whole worker: its message stays unacknowledged for the 1 h visibility timeout
    assert board.status(cid)["status"] == "pending"
    second = workers()
    wait(lambda: board.status(cid)["status"] != "pending", 180, "the next worker ingests it")
    assert board.status(cid)["status"] == "done", board.status(cid)
    assert redis_client.hget(PREFIX + cid, "deliveries") == "2"
    # one whose worker dies on its last allowed delivery is given up: failed, never left pending
    spent_key, spent = contribute(settings, redis_client, body, "worker-killed-again")
    wait(lambda: redis_client.exists(owner_key(spent)), 60, "a worker takes the second contribution")
    second.kill(0)
    redis_client.hset(PREFIX + spent, "deliveries", MAX_DELIVERIES)
    workers()
    wait(lambda: board.status(spent)["status"] != "pending", 60, "the second contribution ends")
    assert board.status(spent)["status"] == "failed" and "given up" in board.status(spent)["reason"]
    for key in (key_id, spent_key):
        purge_contributor(store, redis_client, key, settings.trust_quorum)
