"""The contribution routes around the backlog (ingest/backlog.py): a queue that cannot be reached is a 503 at
once with nothing kept (never a 202 for a contribution no worker will see), a key polls its own corrections,
and an admin key lists dead letters and queues them again. No worker consumes here: every contribution made
is purged with its key at the test's end, so a later module's worker finds nothing of it to ingest."""
from __future__ import annotations

import time
from dataclasses import replace

import pytest
from celery import Celery
from fastapi.testclient import TestClient

from appmem.agent.service import Service
from appmem.api.app import create_app
from appmem.api.contrib import purge
from appmem.ingest.contributions import DEAD, INGEST_QUEUE, PENDING, PREFIX, Contributions
from appmem.keys import KeyStore
from appmem.stack import Stack
from appmem.workers.devices import open_redis
from tests.api.test_hostile import SHOWN, shown_run
from tests.conftest import free_port

PROMPT_S = 10.0  # the broker client's own retries, then the answer


@pytest.fixture(scope="module")
def redis_db(settings):
    client = open_redis(Stack(settings).redis_url())
    yield client
    client.close()


@pytest.fixture(scope="module")
def client(settings):
    service = Service.open(settings, vectors=False)  # the graph alone: contributions need no vectors
    with TestClient(create_app(replace(settings, preload=False), service), raise_server_exceptions=False) as client:
        yield client
    service.close()


@pytest.fixture
def made_keys(settings, store, redis_db):
    """Keys made by the test (`make(name, scopes)` -> (record, secret)), purged with what they sent at its end."""
    made = []

    def make(name: str, scopes: str):
        record, secret = KeyStore(redis_db).create(name, scopes, 1000)
        made.append(record)
        return record, {"Authorization": f"Bearer {secret}"}
    yield make
    for record in made:
        purge(settings, store, redis_db, record.id)


def test_a_contribution_the_queue_cannot_take_is_a_503_at_once_and_nothing_is_kept(client, made_keys, redis_db):
    record, auth = made_keys("broker-down", "contribute")
    services = client.app.state.services
    live = services.celery
    services.celery = Celery("broker-down", broker=f"redis://127.0.0.1:{free_port()}/0")  # nothing listens there
    try:
        started = time.monotonic()
        answer = client.post("/v1/traces", json=shown_run(), headers=auth)
        took = time.monotonic() - started
    finally:
        services.celery = live
    assert (answer.status_code, answer.json()["error"], answer.headers.get("Retry-After")) == (503, "unavailable", "1")
    assert took < PROMPT_S, took
    assert Contributions(redis_db).pending(record.id) == 0
    assert not redis_db.smembers(PREFIX + "by:" + record.id) and not redis_db.smembers(PENDING + record.id)
    assert client.post("/v1/traces", json=shown_run(), headers=auth).status_code == 202  # the queue is back


def correction() -> dict:
    xml = SHOWN.format("[0,0][10,10]")
    return {"task": "press OK", "package": "a.b", "app_version": "1", "action": "tap",
            "element": {"text": "OK", "content_desc": "", "resource_id": "", "class_name": "android.widget.Button",
                        "bounds": [0, 0, 10, 10]}, "before_xml": xml, "after_xml": xml}


def test_a_key_that_may_only_correct_polls_its_own_corrections(client, made_keys):
    _, corrector = made_keys("corrector", "correct")
    _, other = made_keys("other-corrector", "correct")
    _, planner = made_keys("planner", "plan")
    sent = client.post("/v1/corrections", json=correction(), headers=corrector)
    assert sent.status_code == 202, sent.text
    status_url = sent.json()["status_url"]
    polled = client.get(status_url, headers=corrector)
    assert polled.status_code == 200 and polled.json()["status"] == "pending" and polled.json()["kind"] == "correction"
    assert client.get(status_url, headers=other).status_code == 404  # another key's: not even its existence
    assert client.get(status_url, headers=planner).status_code == 403


def test_an_admin_key_lists_dead_letters_and_queues_them_again(client, made_keys, redis_db):
    record, contributor = made_keys("held-contributor", "contribute")
    _, admin = made_keys("backlog-admin", "admin")
    cid = client.post("/v1/traces", json=shown_run(), headers=contributor).json()["trace_id"]
    board = Contributions(redis_db)
    assert board.hold(cid, "held: the memory's stores stayed unreachable")  # as the worker holds it (a test of its
    # own: tests/workers/test_ingest_outage.py)
    assert board.pending(record.id) == 0 and redis_db.sismember(DEAD, cid)
    assert client.get(f"/v1/traces/{cid}", headers=contributor).json()["status"] == "dead"
    assert client.get("/v1/contributions", headers=contributor).status_code == 403
    listed = client.get("/v1/contributions", headers=admin).json()
    row = next(r for r in listed["contributions"] if r["trace_id"] == cid)
    assert (listed["status"], row["status"], row["contributor"], row["kind"]) == ("dead", "dead", record.id, "run")
    assert client.get("/v1/contributions?status=nonsense", headers=admin).status_code == 422
    queued = redis_db.llen(INGEST_QUEUE)
    again = client.post("/v1/contributions/requeue", json={"ids": [cid, "0123456789abcdef01234567"]}, headers=admin)
    assert again.json() == {"requeued": [cid], "not_dead": ["0123456789abcdef01234567"]}
    assert redis_db.llen(INGEST_QUEUE) == queued + 1
    assert board.status(cid)["status"] == "pending" and board.pending(record.id) == 1
    assert redis_db.exists(PREFIX + cid + ":body") and not redis_db.sismember(DEAD, cid)
    assert redis_db.hget(PREFIX + cid, "deliveries") is None  # queued as new
    assert client.post("/v1/contributions/requeue", json={"ids": ["x:body"]}, headers=admin).status_code == 422


def test_a_contribution_parked_but_never_queued_is_queued_by_the_reaper(made_keys, redis_db, settings):
    """The API parked it and could neither queue nor withdraw it (Redis went away between the two): the reaper
    of every ingest worker queues it once its `sending` mark is SEND_GRACE_S old, and only then."""
    from appmem.ingest.backlog import SEND_GRACE_S, sender
    from appmem.workers.ingest_owner import reap_orphans

    record, _ = made_keys("never-queued", "contribute")
    cid = Contributions(redis_db).create("run", record.id, b"{}", sending=True)
    bounds = (settings.ingest_resend_s, settings.ingest_retry_max_age_s)
    url = Stack(settings).redis_url()
    celery = Celery("reaper-test", broker=url, backend=url)
    try:
        assert cid not in reap_orphans(redis_db, sender(celery), *bounds)  # within its grace: the API may still queue it
        queued = redis_db.llen(INGEST_QUEUE)
        sent_at = float(redis_db.hget(PREFIX + cid, "sending"))
        redis_db.hset(PREFIX + cid, "sending", f"{sent_at - SEND_GRACE_S - 1:.3f}")  # as SEND_GRACE_S later
        reaped = reap_orphans(redis_db, sender(celery), *bounds)
        assert cid in reaped and redis_db.hget(PREFIX + cid, "sending") is None
        assert redis_db.llen(INGEST_QUEUE) == queued + len(reaped)
        assert cid not in reap_orphans(redis_db, sender(celery), *bounds)  # queued once
    finally:
        celery.close()


def test_a_contribution_whose_message_no_worker_took_is_sent_again_by_the_reaper_then_held_dead(
        made_keys, redis_db, settings):
    """Queued, and its message lost by the broker (no worker ever takes it): the reaper sends it again once
    it was due APPMEM_INGEST_RESEND_S ago, once per bound, and holds it dead (with its body, re-queueable)
    once it is older than APPMEM_INGEST_RETRY_MAX_AGE_S; a contribution a worker holds is left alone."""
    from appmem.ingest.backlog import mark_sent, queue, sender
    from appmem.workers.ingest_owner import owner_key, reap_orphans

    record, _ = made_keys("message-lost", "contribute")
    board = Contributions(redis_db)
    resend_s, max_age_s = 600, 3600
    url = Stack(settings).redis_url()
    celery = Celery("resend-test", broker=url, backend=url)
    lost = lambda cid: redis_db.lrem(INGEST_QUEUE, 0, next(m for m in redis_db.lrange(INGEST_QUEUE, 0, -1)  # noqa: E731
                                                           if cid in m))
    try:
        cid = queue(board, sender(celery), "run", record.id, b"{}")
        assert lost(cid) == 1  # the broker lost its message: nothing will ever deliver it
        reap = lambda: reap_orphans(redis_db, sender(celery), resend_s, max_age_s)  # noqa: E731
        assert cid not in reap()  # within the bound: it may be waiting behind a backlog
        sent = float(redis_db.hget(PREFIX + cid, "sent"))
        mark_sent(redis_db, cid, sent - resend_s - 1)  # as if the bound passed
        assert cid in reap() and any(cid in m for m in redis_db.lrange(INGEST_QUEUE, 0, -1))
        assert cid not in reap()  # sent again once: the bound starts again
        lost(cid)
        mark_sent(redis_db, cid, sent - resend_s - 1)
        redis_db.set(owner_key(cid), "a-worker")  # a worker holds it (a long ingest): not resent
        assert cid not in reap()
        redis_db.delete(owner_key(cid))
        redis_db.hset(PREFIX + cid, "queued", f"{time.time() - max_age_s - 1:.3f}")  # and it is past the maximum age
        assert cid not in reap()
        assert board.status(cid)["status"] == "dead" and redis_db.sismember(DEAD, cid)
        assert redis_db.exists(PREFIX + cid + ":body") and board.pending(record.id) == 0
    finally:
        celery.close()
