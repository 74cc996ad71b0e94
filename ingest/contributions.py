"""Contributions from devices: run traces, DroidBot folders (tar.gz) and corrections, queued then ingested.

The API validates and scrubs a contribution, parks its body in Redis under a
new id, sets its status `pending` and queues the Celery task
`appmem.ingest_contribution` with the id. The task (`ingest_contribution`
here) writes it into the graph like any import, as observations only (merges
add counts, nothing is deleted or overwritten), each chunk with the
contributor's votes on the edges it touched (graph/votes.py) in its own
transaction, and sets the status `done` with a report or `failed` with a reason. A body is kept until its
contribution is done, failed for what it holds, or purged: one the memory could
not ingest (its stores stayed away through the retries, a worker kept dying on
it, an internal error) is held `dead` with its body, for the operator to queue
again (ingest/backlog.py). A status that ended is kept STATUS_TTL_S.

Tarballs are read defensively and parked cleaned and scrubbed (ingest/tarball.py).

The worker never leaves a contribution `pending`: a bad body fails with the
reason whatever the error, a contribution delivered more than MAX_DELIVERIES
times (a worker killed while ingesting it: late acks redeliver it) is held dead, and
one whose key was revoked (or purged) is dropped. A purge fails its key's pending
contributions first thing: the worker looks after each chunk and after its last
write, and one purged while it was being ingested stops, the purge is run again
(what the ingest wrote goes too) and it stays failed "purged with its
contributor". A status that ended is never written again (`finish` writes only
a pending one). A contributor is one identity,
its key's contributor id (appmem/keys.py: a tenant's keys are private voices), whatever it sends; its `device` reaches the graph only as a keyed
hash (`pseudonym`).
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import secrets
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from collections.abc import Callable
from typing import Any

import redis

from appmem import generations
from appmem.keys import KeyStore
from appmem.errors import AppmemError, InputFormatError, TransientError
from appmem.contract.run import RunTrace
from appmem.graph.model import Trace
from appmem.graph.follows import follow_rows
from appmem.graph.store import GraphStore
from appmem.graph.votes import CORRECTION_WEIGHT, judge_crowd
from appmem.ingest.pipeline import ingest_trace, scrub_trace
from appmem.formats.privacy import scrub_text
from appmem.formats.ui import clean_text, view_text
from appmem.ingest.run import ScreenFinder, ingest_run, validate_run
from appmem.ingest.tarball import unpack

log = logging.getLogger(__name__)

PREFIX = "appmem:contrib:"
STATUS_TTL_S = 30 * 24 * 3600  # a status kept after it ended (done or failed)
MAX_DELIVERIES = 3
MAX_RUN_BYTES = 64 * 1024 * 1024  # a parked run trace's JSON (the API's body limit is lower)
PENDING = "appmem:contrib:pending:"  # + key id: a set of that key's pending contributions (quotas, purge)
DEAD = "appmem:contrib:dead"  # the set of dead letters: contributions held with their bodies (ingest/backlog.py)
PSEUDONYM_KEY = "appmem:contrib:pseudonym-key"
INGEST_TASK = "appmem.ingest_contribution"
INGEST_QUEUE = "ingest"
PURGED = "purged with its contributor"

# finish: the status is written only while it is pending or dead (a purge or a failure is never overwritten),
# then kept STATUS_TTL_S
_FINISH = """
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'pending' and status ~= 'dead' then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('EXPIRE', KEYS[1], ARGV[1])
return 1
"""

# hold: only a pending contribution becomes a dead letter (listed in DEAD, out of its key's pending set)
_HOLD = """
if redis.call('HGET', KEYS[1], 'status') ~= 'pending' then return 0 end
redis.call('HSET', KEYS[1], 'status', 'dead', 'reason', ARGV[1])
redis.call('SADD', KEYS[2], ARGV[2])
redis.call('SREM', KEYS[3], ARGV[2])
return 1
"""


class ContributionPurged(AppmemError):
    """The contribution's key was purged while the contribution was being ingested."""


def scrub_xml(xml: str) -> str:
    """A dump with every text and content description cleaned and clipped (formats/ui.view_text: what the
    dump's reader keeps) and its personal data replaced (formats/privacy.py)."""
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as exc:
        raise InputFormatError("dump", f"malformed XML: {exc}") from None
    for node in root.iter("node"):
        editable = "EditText" in (node.get("class") or "")
        for attr in ("text", "content-desc"):
            if node.get(attr):
                node.set(attr, scrub_text(view_text(node.get(attr)), typed=editable))
    return ET.tostring(root, encoding="unicode")


def scrub_run(run: RunTrace) -> RunTrace:
    """The run with its task, typed inputs, element texts and dumps cleaned of invisible characters
    (formats/ui.py) and scrubbed before it is stored anywhere. Screenshots cannot be scrubbed: they are
    parked only until the worker has located them, and the graph keeps only which remembered screen and
    element they showed."""
    steps = []
    for step in run.steps:
        element = step.element.model_copy(update={"text": scrub_text(view_text(step.element.text)),
                                                  "content_desc": scrub_text(view_text(step.element.content_desc))}) \
            if step.element else None
        steps.append(step.model_copy(update={
            "input": scrub_text(clean_text(step.input), typed=True) if step.action == "input" else step.input,
            "element": element, "before_xml": scrub_xml(step.before_xml) if step.before_xml else "",
            "after_xml": scrub_xml(step.after_xml) if step.after_xml else ""}))
    return run.model_copy(update={"task": scrub_text(clean_text(run.task)), "steps": steps})


class Contributions:
    """Status and parked bodies (base64: the client decodes responses) of contributions, in Redis."""

    def __init__(self, r: redis.Redis):
        self.r = r

    def create(self, kind: str, contributor: str, body: bytes, sending: bool = False) -> str:
        """A new pending contribution, its body parked; `sending`: marked as being queued (ingest/backlog.py)."""
        cid = secrets.token_hex(12)
        now = f"{time.time():.3f}"
        pipe = self.r.pipeline()
        pipe.hset(PREFIX + cid, mapping={"kind": kind, "contributor": contributor, "status": "pending", "reason": "",
                                         "queued": now,  # retries count their age from it
                                         **({"sending": now} if sending else {})})
        pipe.set(PREFIX + cid + ":body", base64.b64encode(body).decode("ascii"))  # kept until it ends
        pipe.sadd(PENDING + contributor, cid)
        pipe.sadd(PREFIX + "by:" + contributor, cid)
        pipe.execute()
        return cid

    def pending(self, contributor: str) -> int:
        """How many of the key's contributions are waiting (entries whose status ended are dropped)."""
        ids = list(self.r.smembers(PENDING + contributor))
        if not ids:
            return 0
        pipe = self.r.pipeline()
        for cid in ids:
            pipe.hget(PREFIX + cid, "status")
        done = [cid for cid, status in zip(ids, pipe.execute()) if status != "pending"]
        if done:
            self.r.srem(PENDING + contributor, *done)
        return len(ids) - len(done)

    def delivered(self, cid: str, retry: bool = False) -> int:
        """Count one more delivery of the contribution to a worker (`retry`: the task's own retry after a transient
        error); returns how many were not such retries (a graph down for a while is no worker dying on the body).
        Every delivery counts in `deliveries`: the reaper (workers/ingest_owner.py) tells a lost one by it."""
        pipe = self.r.pipeline()
        pipe.hincrby(PREFIX + cid, "deliveries", 1)
        pipe.hincrby(PREFIX + cid, "retries", int(retry))
        deliveries, retries = pipe.execute()
        return int(deliveries) - int(retries)

    def status(self, cid: str) -> dict[str, Any] | None:
        raw = self.r.hgetall(PREFIX + cid)
        if not raw:
            return None
        data = dict(raw)
        return {"trace_id": cid, "status": data["status"], "kind": data["kind"], "reason": data.get("reason", ""),
                "report": json.loads(data["report"]) if data.get("report") else None,
                "contributor": data["contributor"]}

    def finish(self, cid: str, report: dict | None = None, reason: str = "") -> bool:
        """End a pending (or dead) contribution `done` (with its report) or `failed` (with the reason), its body
        deleted; False when its status had already ended (a purge failed it while it was ingested: that stays)."""
        mapping = {"status": "failed" if reason else "done", "reason": reason}
        if report is not None:
            mapping["report"] = json.dumps(report)
        contributor = self.r.hget(PREFIX + cid, "contributor") or ""
        pipe = self.r.pipeline()
        pipe.eval(_FINISH, 1, PREFIX + cid, STATUS_TTL_S, *[item for pair in mapping.items() for item in pair])
        pipe.delete(PREFIX + cid + ":body")
        pipe.srem(PENDING + contributor, cid)
        pipe.srem(DEAD, cid)
        return bool(pipe.execute()[0])

    def hold(self, cid: str, reason: str) -> bool:
        """A pending contribution the memory could not ingest, held `dead` with its body (no longer waiting:
        out of its key's quota) until the operator queues it again (ingest/backlog.py); False when it was
        not pending."""
        contributor = self.r.hget(PREFIX + cid, "contributor") or ""
        return bool(self.r.eval(_HOLD, 3, PREFIX + cid, DEAD, PENDING + contributor, reason, cid))


def pseudonym(r: redis.Redis, device: str) -> str:
    """The device name as the graph keeps it: a keyed hash (the key is made once, kept in Redis)."""
    r.set(PSEUDONYM_KEY, secrets.token_hex(32), nx=True)
    key = r.get(PSEUDONYM_KEY)
    return "device:" + hmac.new(str(key).encode(), device.encode("utf-8", "replace"), hashlib.sha256).hexdigest()[:16]


def ingest_contribution(store: GraphStore, r: redis.Redis, cid: str, purge: Callable[[str], object],
                        chunk_steps: int = 200, quorum: int = 3, retry: bool = False,
                        find: ScreenFinder | None = None, prepare: Callable[[str, str], object] | None = None) -> dict:
    """Ingest one parked contribution and record its status; a bad one fails with the reason, never raises
    for bad input (a transient graph error is raised, for the task's bounded retry). `purge(key_id)`
    takes back a contributor's observations (ingest/purge.py): run when the contribution is purged
    while it is ingested. `retry`: the task's own retry after a transient error, which does not count towards
    MAX_DELIVERIES (`Contributions.delivered`). `find` locates a run's screenshots (ingest/run.py).
    `prepare(tenant, package)`: run after a tenant's key's contribution is stored and before its status
    says done (the worker embeds the tenant's layer of the app: agent/service.py `embed_layer`)."""
    board = Contributions(r)
    info = board.status(cid)
    if info is None or info["status"] != "pending":
        return {"status": info["status"] if info else "failed", "reason": "unknown, expired or already ingested"}
    # counted before anything slow (the body can be megabytes): a worker killed after taking the lease is then
    # always one the reaper queues again within seconds, never one left for the 6 h resend of a lost message
    if (deliveries := board.delivered(cid, retry)) > MAX_DELIVERIES:
        reason = f"held after {deliveries - 1} deliveries (a worker died ingesting it)"
        board.hold(cid, reason)
        return {"status": "dead", "reason": reason}
    parked = r.get(PREFIX + cid + ":body")
    if parked is None:
        return _fail(board, cid, "its body expired or was purged before a worker took it")
    key = KeyStore(r).get(info["contributor"])
    if key is None or key.revoked:
        return _fail(board, cid, "dropped: its key was revoked")

    def stop_if_purged(*_: int) -> None:  # after each chunk and after the last write
        if r.hmget(PREFIX + cid, "status", "reason") == ["failed", PURGED]:
            raise ContributionPurged(f"contribution {cid} was purged with its contributor while ingested")

    try:
        body = base64.b64decode(parked)
        report = _ingest(store, r, info["kind"], key.contributor, body, chunk_steps, quorum, stop_if_purged, find)
    except ContributionPurged:
        log.warning("contribution %s was purged while ingested: its key's purge runs again", cid)
        purge(info["contributor"])  # after this ingest's last write: nothing it wrote is left
        return {"status": "failed", "reason": PURGED}
    except TransientError:
        raise
    except AppmemError as exc:
        return _fail(board, cid, str(exc))
    except (ValueError, TypeError, KeyError, RecursionError, OSError, UnicodeError, MemoryError) as exc:
        return _fail(board, cid, f"unreadable contribution: {type(exc).__name__}: {str(exc)[:300]}")
    if prepare is not None and key.tenant:
        prepare(key.tenant, report["package"])
    if not board.finish(cid, report=report):  # purged after the last check: after the last write too
        return {"status": "failed", "reason": PURGED}
    generations.bump(r, [report["package"]])  # the app changed: every server process stops serving its cached plans
    return {"status": "done", **report}


def _fail(board: Contributions, cid: str, reason: str) -> dict:
    board.finish(cid, reason=reason)
    return {"status": "failed", "reason": reason}


def _ingest(store: GraphStore, r: redis.Redis, kind: str, contributor: str, body: bytes, chunk_steps: int,
            quorum: int, check: Callable[..., None], find: ScreenFinder | None = None) -> dict:
    weight = CORRECTION_WEIGHT if kind == "correction" else 1.0
    if kind == "droidbot":
        from appmem.ingest.droidbot import read_recording, recording_trace

        with tempfile.TemporaryDirectory(prefix="appmem-contrib-") as tmp:
            folder = unpack(body, Path(tmp))
            try:
                trace = recording_trace(read_recording(folder), device=pseudonym(r, f"{contributor}:droidbot"))
            except InputFormatError as exc:  # named inside the archive, not by this worker's scratch folder
                raise InputFormatError(exc.source.replace(tmp, "archive"), exc.problem.replace(tmp, "archive")) from None
        trace.contributor = contributor
        store.ensure_schema()
        report = ingest_trace(store, trace, chunk_steps, check, quorum).as_dict()
    else:
        if len(body) > MAX_RUN_BYTES:
            raise InputFormatError("contribution", f"larger than {MAX_RUN_BYTES} bytes")
        store.ensure_schema()
        run = validate_run(json.loads(body), "contribution")
        run = run.model_copy(update={"device": pseudonym(r, f"{contributor}:{run.device}")})
        report, imported = ingest_run(store, run, contributor, chunk_steps, quorum, check, weight=weight, find=find)
        trace = imported.trace
        if imported.task is not None:
            store.write("task_crowd", task_id=imported.task.id, quorum=quorum)
    count_votes(store, trace, contributor, quorum)
    check()
    return {**report, "graph_trace_id": trace.id, "package": trace.package}


def count_votes(store: GraphStore, trace: Trace, contributor: str, quorum: int) -> None:
    """After the contributor's ingested `trace` (whose chunks recorded its votes on the edges: graph/store.py
    write_chunk): its voice on order-2 outcomes, then its screens and elements judged (an edge, screen or
    element only contributions report is trusted at `quorum` keys)."""
    clean = scrub_trace(trace)
    store.write("follow_votes", rows=follow_rows(clean, clean.steps, {}), contributor=contributor, quorum=quorum)
    judge_crowd(store, [trace.package], quorum)
