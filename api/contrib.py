"""Contribution routes: run traces or DroidBot tarballs (scope `contribute`), corrections (scope `correct`),
their status.

Bodies are validated and scrubbed off the event loop (a worker thread: parsing a
large body must not stall other requests), parked in Redis and queued to the
Celery ingest task (ingest/contributions.py); the answer is 202 with the
contribution's id and where to poll its status (the key that sent it polls it:
`contribute` or `correct`). A queue that cannot be reached is a 503 with
Retry-After, nothing kept (ingest/backlog.py), never a 202. A malformed or hostile
body is a 422 naming the problem, never a 500. Per-key quotas (per minute, per UTC
day, waiting for a worker; settings `contrib_*`) each answer 429 with Retry-After.
Dead letters (contributions held with their bodies) are listed and queued again
by an `admin` key (`/v1/contributions`), as `appmem contributions` does.
"""
from __future__ import annotations

import functools
import json
import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, HTTPException, Path, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from pydantic import StringConstraints

from appmem.api.auth import require
from appmem.errors import AppmemError, InputFormatError, TransientError
from appmem.settings import Settings
from appmem.contract import Accepted, ContributionStatus, CorrectionRequest, RunStep, RunTrace
from appmem.contract.contributions import STATUSES
from appmem.ingest import backlog
from appmem.ingest.contributions import scrub_run
from appmem.ingest.purge import PurgeOptions, purge_contributor
from appmem.ingest.tarball import clean_archive
from appmem.graph.rows import now_iso
from appmem.graph.store import GraphStore
from appmem.ingest.run import require_app, run_trace, validate_run

log = logging.getLogger(__name__)

router = APIRouter(prefix="/v1", tags=["contributions"])
ContributionId = Annotated[str, StringConstraints(min_length=1, max_length=64, pattern=r"^[0-9a-f]+$")]
TRACE_BODY = {"requestBody": {"required": True, "content": {
    "application/json": {"schema": RunTrace.model_json_schema(ref_template="#/components/schemas/{model}")},
    "application/gzip": {"schema": {"type": "string", "format": "binary",
                                    "description": "a DroidBot output folder as tar.gz"}}}}}


def _quota(request: Request) -> None:
    """429 when the key is over one of its contribution quotas."""
    services = request.app.state.services
    settings, key, now = services.settings, request.state.key, int(time.time())
    minute, day = f"appmem:quota:{key.id}:m:{now // 60}", f"appmem:quota:{key.id}:d:{now // 86400}"
    pipe = services.contributions.r.pipeline(transaction=False)
    pipe.incr(minute)
    pipe.expire(minute, 120)
    pipe.incr(day)
    pipe.expire(day, 2 * 86400)
    per_minute, _, per_day, _ = pipe.execute()
    if per_minute > settings.contrib_per_minute:
        raise HTTPException(429, f"key {key.id}: more than {settings.contrib_per_minute} contributions this minute",
                            headers={"Retry-After": str(60 - now % 60)})
    if per_day > settings.contrib_per_day:
        raise HTTPException(429, f"key {key.id}: more than {settings.contrib_per_day} contributions today (UTC)",
                            headers={"Retry-After": str(86400 - now % 86400)})
    if (waiting := services.contributions.pending(key.id)) >= settings.contrib_pending:
        raise HTTPException(429, f"key {key.id}: {waiting} contributions are still waiting for a worker",
                            headers={"Retry-After": "30"})


def _queue(request: Request, kind: str, body: bytes) -> JSONResponse:
    services = request.app.state.services
    key = request.state.key
    cid = backlog.queue(services.contributions, backlog.sender(services.celery), kind, key.id, body)
    services.metrics.contributions.labels(kind).inc()
    accepted = Accepted(trace_id=cid, status_url=str(request.url_for("trace_status", trace_id=cid).path))
    return JSONResponse(accepted.model_dump(), status_code=202)


def _checked_run(store, body: bytes) -> bytes:
    """The run trace JSON validated, checked against its dumps and memory's apps, scrubbed (what is parked)."""
    try:
        raw = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputFormatError("body", f"not JSON ({exc.msg if hasattr(exc, 'msg') else 'bad encoding'})") from None
    except RecursionError:
        raise InputFormatError("body", "JSON nested too deeply") from None
    run = scrub_run(validate_run(raw, "body"))
    require_app(store, run)
    run_trace(run)  # its dumps parse: refuse it now, not in the worker
    return run.model_dump_json().encode()


def _accept(request: Request, kind: str, check, body: bytes) -> JSONResponse:
    """Quota, then the check (a worker thread), then the queue. A malformed body is an InputFormatError,
    which the API's one mapping (api/app.py STATUS_OF) answers with a 422 naming the problem."""
    _quota(request)
    try:
        parked = check(body)
    except (ValueError, TypeError, RecursionError, MemoryError) as exc:  # whatever a hostile body provokes
        raise InputFormatError("body", f"unreadable ({type(exc).__name__})") from None
    return _queue(request, kind, parked)


@router.post("/traces", status_code=202, response_model=Accepted, openapi_extra=TRACE_BODY,
             summary="contribute an executed run trace (contract.RunTrace) or a DroidBot tar.gz")
async def post_trace(request: Request, _=Depends(require("contribute"))) -> JSONResponse:
    body = await request.body()
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype in ("application/gzip", "application/x-gzip", "application/octet-stream"):
        # read in memory with limits checked while reading, scrubbed, screenshots dropped (ingest/tarball.py)
        return await run_in_threadpool(_accept, request, "droidbot", clean_archive, body)
    if ctype != "application/json":
        raise HTTPException(415, "send application/json (a run trace) or application/gzip (a DroidBot tar.gz)")
    checked = functools.partial(_checked_run, request.app.state.services.service.store)
    return await run_in_threadpool(_accept, request, "run", checked, body)


@router.get("/traces/{trace_id}", name="trace_status", response_model=ContributionStatus,
            summary="a contribution's status: pending, done, failed with a reason, or dead (held for a re-queue)")
def trace_status(request: Request, trace_id: str = Path(min_length=1, max_length=64, pattern=r"^[0-9a-f]+$"),
                 _=Depends(require("contribute", "correct"))) -> ContributionStatus:
    found = request.app.state.services.contributions.status(trace_id)
    key = request.state.key
    if found is None or (found.get("contributor") != key.id and "admin" not in key.scopes):
        raise HTTPException(404, f"no contribution {trace_id!r} of this key")  # another key's: not even its existence
    return ContributionStatus(**{k: v for k, v in found.items() if k != "contributor"})


@router.post("/corrections", status_code=202, response_model=Accepted,
             summary="a person's fix of a step, stored as a high-trust observation")
def post_correction(body: CorrectionRequest, request: Request, _=Depends(require("correct"))) -> JSONResponse:
    step = RunStep(index=0, action=body.action, element=body.element, input=body.input, before_xml=body.before_xml,
                   after_xml=body.after_xml, before_activity=body.before_activity,
                   after_activity=body.after_activity, outcome="ok")
    now = now_iso()
    run = RunTrace(task=body.task, package=body.package, app_version=body.app_version, device="correction",
                   started=now, ended=now, status="done", steps=[step])
    checked = functools.partial(_checked_run, request.app.state.services.service.store)
    return _accept(request, "correction", checked, run.model_dump_json().encode())


@router.get("/contributions", summary="contributions Redis holds, by status: dead letters by default (scope admin)")
def list_contributions(request: Request, status: str = Query("dead", pattern=f"^({'|'.join(STATUSES)}|all)$"),
                       _=Depends(require("admin"))) -> dict:
    rows = backlog.listing(request.app.state.services.contributions.r, None if status == "all" else status)
    return {"status": status, "count": len(rows), "contributions": rows}


@router.post("/contributions/requeue", summary="queue dead letters again: those named, or every one (scope admin)")
def requeue_contributions(request: Request, ids: list[ContributionId] | None = Body(None, embed=True, max_length=10_000),
                          _=Depends(require("admin"))) -> dict:
    services = request.app.state.services
    return backlog.requeue(services.contributions.r, backlog.sender(services.celery), ids)


@router.delete("/contributors/{key_id}", summary="remove every observation a key contributed, then revoke it "
               "(scope admin)")
def delete_contributor(request: Request, key_id: str = Path(min_length=1, max_length=64, pattern=r"^[0-9a-f]+$"),
                       _=Depends(require("admin"))) -> dict:
    services = request.app.state.services
    if services.keys.get(key_id) is None:
        raise HTTPException(404, f"no key with id {key_id!r}")
    return purge(services.settings, services.service.store, services.contributions.r, key_id,
                 services.service.vectors)


def purge(settings: Settings, store: GraphStore, r: Any, key_id: str, vectors: Any = None) -> dict:
    """The one purge of a key, of the CLI (`appmem keys purge`) and the API."""
    with writable_vectors(settings, vectors) as writable:
        return purge_contributor(store, r, key_id, settings.trust_quorum, writable, options=PurgeOptions.of(settings),
                                 forget_cached=functools.partial(forget_cached, settings))


def forget_cached(settings: Settings, packages: list[str]) -> dict[str, int]:
    """What the caches in `settings.home` keep of these apps' texts, deleted: how many of each (`layers`: tenants'
    kept points of these apps, semantic/layercache.py)."""
    from appmem.semantic import layercache
    from appmem.semantic.embedder import forget_apps
    from appmem.semantic.llm import forget_summaries

    return {"summaries": forget_summaries(settings.home, packages), "embeddings": forget_apps(settings.home, packages),
            "layers": layercache.forget_apps(settings.home, packages)}


def forget_tenant_cached(settings: Settings, tenant: str) -> dict[str, int]:
    """What the caches in `settings.home` keep of a purged tenant's, deleted: how many of each (`embeddings`: its
    views' cached vectors; `layers`: their kept points)."""
    from appmem.semantic import layercache
    from appmem.semantic.embedder import forget_namespace

    return {"embeddings": forget_namespace(settings.home, tenant), "layers": layercache.forget_namespace(settings.home, tenant)}


@contextmanager
def writable_vectors(settings: Settings, vectors: Any = None) -> Iterator[Any]:
    """The vectors a purge deletes from: `vectors` when this process may write them, else the local folder
    opened here when no other process owns it (every serve process reads the read-only snapshots), else None
    (the purge reports the vectors untouched). After the purge the snapshots are re-published, so every
    reader stops seeing the purged points."""
    from appmem.semantic.vectors import VectorStore, open_vectors
    from appmem.semantic.snapshots import publish

    opened = None
    if not isinstance(vectors, VectorStore):
        try:
            from appmem.semantic.embedder import DIMS

            # a purge only deletes: it works whatever model made the memory (the record stays, modelrecord)
            vectors = opened = open_vectors(settings, DIMS.get(settings.embed_model, 384), check=False)
        except (AppmemError, RuntimeError):  # owned by another process (summarize, the ingest worker)
            vectors = None
    try:
        yield vectors
        if vectors is not None:
            try:
                publish(vectors)
            except TransientError as exc:  # search checks every hit against the graph: a stale snapshot shows nothing
                log.warning("vector snapshots not re-published after a purge: %s", exc)
    finally:
        if opened is not None:
            opened.client.close()
