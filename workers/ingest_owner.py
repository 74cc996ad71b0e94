"""Who ingests a contribution: one owner at a time, and a contribution whose owner died delivered again.

A delivery of `appmem.ingest_contribution` owns its contribution through a lease
(`appmem:contrib:<id>:owner`, LEASE_TTL_S, renewed by a heartbeat thread); a
second delivery while the lease is held does nothing. A whole worker killed
(kill -9 of its process group) leaves its message unacknowledged until the
broker's visibility timeout (1 h); instead, the main process of every worker
that consumes the `ingest` queue looks every REAP_EVERY_S for pending
contributions that a worker took and whose owner lease expired, and queues each
once again (`reap_orphans`). A redelivery counts: a contribution whose worker
keeps dying is held dead after MAX_DELIVERIES (ingest/contributions.py). The
same round queues a contribution the API parked but could not queue nor withdraw
(ingest/backlog.py `unsent`), and sends again one whose message no worker took
`resend_after_s` (APPMEM_INGEST_RESEND_S) after it was due (`unheard`: the broker
lost it), or holds it dead once it is past the retries' maximum age.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

import redis

from appmem.errors import TransientError
from appmem.ingest.backlog import age, mark_sent, unheard, unsent
from appmem.ingest.contributions import PENDING, PREFIX, Contributions
from appmem.workers.devices import Heartbeat, acquire

log = logging.getLogger(__name__)

LEASE_TTL_S = 10.0
REAP_EVERY_S = 5.0


def owner_key(cid: str) -> str:
    return PREFIX + cid + ":owner"


def owned(r: redis.Redis, holder: str, cid: str, ingest: Callable[[], dict]) -> dict:
    """Run `ingest` while holding the contribution's owner lease; a duplicate delivery returns at once."""
    lease = acquire(r, owner_key(cid), LEASE_TTL_S, holder)
    if lease is None:
        return {"status": "duplicate", "reason": "another worker is ingesting it"}
    heartbeat = Heartbeat([lease], LEASE_TTL_S / 3, lambda: True, lambda: None).start()
    try:
        return ingest()
    except TransientError:
        _queued(r, cid)  # Celery's retry queues it again: not an orphan
        raise
    finally:
        heartbeat.stop()
        lease.release()


def reap_orphans(r: redis.Redis, send: Callable[[str], None], resend_after_s: float,
                 max_age_s: float) -> list[str]:
    """Queue again every pending contribution a worker took and no live worker owns (once per delivery), every
    one the API parked and never queued, and every one whose message no worker took `resend_after_s` after it
    was due (the broker lost it); one older than `max_age_s` whose message was lost is held dead instead."""
    out = []
    for pending in r.scan_iter(match=PENDING + "*"):
        for cid in r.smembers(pending):
            status, deliveries, requeued = r.hmget(PREFIX + cid, "status", "deliveries", "requeued")
            if status != "pending" or r.exists(owner_key(cid)):
                continue
            if unsent(r, cid):
                log.warning("contribution %s was parked and never queued; queued now", cid)
                _send(r, send, cid)
                r.hdel(PREFIX + cid, "sending")
                out.append(cid)
            elif deliveries and deliveries != requeued:
                log.warning("contribution %s lost its worker (delivery %s); queued again", cid, deliveries)
                _queued(r, cid)
                _send(r, send, cid)
                out.append(cid)
            elif unheard(r, cid, resend_after_s):
                if age(r, cid) > max_age_s:
                    log.error("contribution %s: no worker took its message, and it is past the maximum age", cid)
                    Contributions(r).hold(cid, "held: no worker took its message before the retries' maximum age")
                    continue
                log.warning("contribution %s: no worker took its message in %.0f s; sent again", cid, resend_after_s)
                _send(r, send, cid)
                out.append(cid)
    return out


def _send(r: redis.Redis, send: Callable[[str], None], cid: str) -> None:
    send(cid)
    mark_sent(r, cid)


def start_reaper(r: redis.Redis, send: Callable[[str], None], resend_after_s: float,
                 max_age_s: float) -> threading.Thread:
    """`reap_orphans` now and every REAP_EVERY_S, from a daemon thread, for the life of the process."""
    def loop() -> None:
        while True:
            try:
                reap_orphans(r, send, resend_after_s, max_age_s)
            except redis.RedisError as exc:  # Redis away: the next round tries again
                log.warning("reaping orphaned contributions: %s", exc)
            time.sleep(REAP_EVERY_S)

    thread = threading.Thread(target=loop, name="contribution-reaper", daemon=True)
    thread.start()
    return thread


def _queued(r: redis.Redis, cid: str) -> None:
    """Mark the contribution's current delivery as queued again (the reaper leaves it until it is taken)."""
    r.hset(PREFIX + cid, "requeued", r.hget(PREFIX + cid, "deliveries") or "0")
