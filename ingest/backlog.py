"""The backlog of contributions: queued once accepted, retried through store outages, held as dead letters.

- `queue`: park a contribution (ingest/contributions.py) and queue its ingest, marking when
  its message is due at a worker (`sent`). When the
  queue cannot be reached (the broker client's own retries spent), the contribution is
  withdrawn and a TransientError raised: the client hears it at once (503 with
  Retry-After) and sends it again; nothing is left pending. Should the withdrawal fail
  too, the contribution keeps its `sending` mark and the reaper
  (workers/ingest_owner.py) queues it once SEND_GRACE_S have passed.
- `unheard`: a pending contribution whose latest message was due at a worker longer ago than
  `resend_after_s` (APPMEM_INGEST_RESEND_S) and that no worker took (the broker lost the message):
  the reaper sends it again (a second delivery of one still queued does nothing: its owner lease,
  its status), or holds it dead once it is older than the retries' maximum age.
- `retry_delay`: how long the ingest task waits after a transient error (the graph or
  Redis away) before it tries again: FIRST_DELAY_S, doubled with every retry up to
  `max_delay_s`, so the delay grows with the outage, jittered so that a backlog does not
  come back all at once; None once the contribution would be older than `max_age_s`
  (since it was accepted or queued again): then it is held `dead`, with its body.
- `requeue`: dead letters queued again, as new (their age, deliveries and retries start
  again); `listing`: contributions by status (`appmem contributions`, the admin route).
"""
from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Iterable
from typing import Any

import kombu.exceptions
import redis

from appmem.errors import TransientError
from appmem.ingest.contributions import DEAD, INGEST_QUEUE, INGEST_TASK, PENDING, PREFIX, Contributions

log = logging.getLogger(__name__)

FIRST_DELAY_S = 1.0
SEND_GRACE_S = 60.0  # a contribution still marked `sending` this long after it was parked was never queued
# what a broker client raises once its own retries are spent (the broker is Redis)
SEND_ERRORS = (kombu.exceptions.OperationalError, redis.RedisError, OSError)

Send = Callable[[str], Any]  # queues the ingest of one contribution id (the Celery task `appmem.ingest_contribution`)

# requeue: only a dead letter is queued again, as new
_REQUEUE = """
if redis.call('HGET', KEYS[1], 'status') ~= 'dead' then return 0 end
redis.call('HSET', KEYS[1], 'status', 'pending', 'reason', '', 'queued', ARGV[1], 'sent', ARGV[1])
redis.call('HDEL', KEYS[1], 'deliveries', 'retries', 'requeued')
redis.call('SREM', KEYS[2], ARGV[2])
redis.call('SADD', KEYS[3], ARGV[2])
return 1
"""


def queue(board: Contributions, send: Send, kind: str, contributor: str, body: bytes) -> str:
    """Park the contribution and queue its ingest; its id. TransientError (nothing kept) when it cannot be queued."""
    cid = board.create(kind, contributor, body, sending=True)
    try:
        send(cid)
    except SEND_ERRORS as exc:
        log.error("contribution %s could not be queued: %s: %s", cid, type(exc).__name__, exc)
        _withdraw(board.r, cid, contributor)
        raise TransientError("the ingest queue is unreachable: the contribution was not kept; send it again") from None
    mark_sent(board.r, cid)
    board.r.hdel(PREFIX + cid, "sending")
    return cid


def mark_sent(r: redis.Redis, cid: str, due: float | None = None) -> None:
    """Record that a message of the contribution was sent, due at a worker at `due` (default: now)."""
    r.hset(PREFIX + cid, "sent", f"{due or time.time():.3f}")


def unheard(r: redis.Redis, cid: str, resend_after_s: float, now: float | None = None) -> bool:
    """Whether the contribution's latest message was due more than `resend_after_s` ago (its `sent` mark, else
    when it was accepted): a pending contribution no worker holds has then lost its message."""
    sent, queued = r.hmget(PREFIX + cid, "sent", "queued")
    since = sent or queued
    return since is not None and (now or time.time()) - float(since) > resend_after_s


def _withdraw(r: redis.Redis, cid: str, contributor: str) -> None:
    try:
        r.delete(PREFIX + cid, PREFIX + cid + ":body")
        r.srem(PENDING + contributor, cid)
        r.srem(PREFIX + "by:" + contributor, cid)
    except redis.RedisError as exc:  # left `sending`: the reaper queues it (SEND_GRACE_S)
        log.error("contribution %s could not be withdrawn (%s): the reaper queues it", cid, exc)


def unsent(r: redis.Redis, cid: str, now: float | None = None) -> bool:
    """Whether the pending contribution was parked but never queued (its `sending` mark older than SEND_GRACE_S)."""
    sending = r.hget(PREFIX + cid, "sending")
    return sending is not None and (now or time.time()) - float(sending) > SEND_GRACE_S


def retry_delay(retries: int, age_s: float, max_age_s: float, max_delay_s: float,
                jitter: Callable[[], float] = random.random) -> float | None:
    """Seconds before retry number `retries + 1` of a contribution `age_s` old; None when that would pass
    `max_age_s` (it is held dead). `jitter()` in [0, 1) takes up to half the delay off."""
    delay = min(float(max_delay_s), FIRST_DELAY_S * 2.0 ** min(retries, 40)) * (1.0 - jitter() / 2)
    return None if age_s + delay > max_age_s else delay


def age(r: redis.Redis, cid: str, now: float | None = None) -> float:
    """Seconds since the contribution was accepted or queued again (a contribution without the mark gets it now)."""
    now = now or time.time()
    r.hsetnx(PREFIX + cid, "queued", f"{now:.3f}")
    return max(0.0, now - float(r.hget(PREFIX + cid, "queued") or now))


def requeue(r: redis.Redis, send: Send, ids: Iterable[str] | None = None) -> dict[str, list[str]]:
    """Queue dead letters again: `ids`, or every one. {"requeued": [...], "not_dead": [...]} (unknown ids, or
    contributions not dead). TransientError when the queue is unreachable (that one stays dead)."""
    board = Contributions(r)
    ids = sorted(r.smembers(DEAD)) if ids is None else list(ids)
    out: dict[str, list[str]] = {"requeued": [], "not_dead": []}
    for cid in ids:
        contributor = r.hget(PREFIX + cid, "contributor") or ""
        if not r.eval(_REQUEUE, 3, PREFIX + cid, DEAD, PENDING + contributor, f"{time.time():.3f}", cid):
            out["not_dead"].append(cid)
            continue
        try:
            send(cid)
        except SEND_ERRORS as exc:
            board.hold(cid, r.hget(PREFIX + cid, "reason") or "held: the ingest queue was unreachable")
            raise TransientError(f"the ingest queue is unreachable ({type(exc).__name__}): {cid} stays dead; "
                                 f"{len(out['requeued'])} were queued again") from None
        out["requeued"].append(cid)
    return out


def listing(r: redis.Redis, status: str | None = None) -> list[dict[str, Any]]:
    """The contributions Redis holds, with `status` (every one: None), oldest first."""
    if status == "dead":
        ids = set(r.smembers(DEAD))
    else:
        pattern = PENDING + "*" if status == "pending" else PREFIX + "by:*"
        ids = {cid for name in r.scan_iter(match=pattern) for cid in r.smembers(name)}
    pipe = r.pipeline()
    ordered = sorted(ids)
    for cid in ordered:
        pipe.hgetall(PREFIX + cid)
    now = time.time()
    rows = []
    for cid, data in zip(ordered, pipe.execute()):
        if not data or (status is not None and data.get("status") != status):
            continue  # an ended status expired (STATUS_TTL_S)
        rows.append({"trace_id": cid, "status": data["status"], "kind": data.get("kind", ""),
                     "contributor": data.get("contributor", ""), "reason": data.get("reason", ""),
                     "age_s": round(now - float(data["queued"]), 1) if data.get("queued") else None,
                     "deliveries": int(data.get("deliveries") or 0), "retries": int(data.get("retries") or 0)})
    return sorted(rows, key=lambda row: -(row["age_s"] or 0))


def sender(celery: Any) -> Send:
    """`Send` through a Celery client (the API's, the CLI's, a worker's own app)."""
    return lambda cid: celery.send_task(INGEST_TASK, args=[cid], queue=INGEST_QUEUE)
