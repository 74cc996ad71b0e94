"""Contribution routes (scope `contribute`): run traces or DroidBot tarballs, corrections, their status.

Bodies are validated and scrubbed here, parked in Redis and queued to the
Celery ingest task (ingest/contributions.py); the answer is 202 with the
contribution's id and where to poll its status.
"""
from __future__ import annotations

import json
import tempfile
from pathlib import Path as FsPath

from fastapi import APIRouter, Depends, HTTPException, Path, Request
from fastapi.responses import JSONResponse

from api.auth import require
from appmem.errors import InputFormatError
from contract import Accepted, ContributionStatus, CorrectionRequest, RunStep, RunTrace
from ingest.contributions import INGEST_QUEUE, INGEST_TASK, safe_extract, scrub_run
from graph.rows import now_iso
from ingest.run import run_trace, validate_run

router = APIRouter(prefix="/v1", tags=["contributions"])
TRACE_BODY = {"requestBody": {"required": True, "content": {
    "application/json": {"schema": RunTrace.model_json_schema(ref_template="#/components/schemas/{model}")},
    "application/gzip": {"schema": {"type": "string", "format": "binary",
                                    "description": "a DroidBot output folder as tar.gz"}}}}}


def _queue(request: Request, kind: str, body: bytes) -> JSONResponse:
    services = request.app.state.services
    key = request.state.key
    cid = services.contributions.create(kind, key.id, body)
    services.celery.send_task(INGEST_TASK, args=[cid], queue=INGEST_QUEUE)
    services.metrics.contributions.labels(kind).inc()
    accepted = Accepted(trace_id=cid, status_url=str(request.url_for("trace_status", trace_id=cid).path))
    return JSONResponse(accepted.model_dump(), status_code=202)


@router.post("/traces", status_code=202, response_model=Accepted, openapi_extra=TRACE_BODY,
             summary="contribute an executed run trace (contract.RunTrace) or a DroidBot tar.gz")
async def post_trace(request: Request, _=Depends(require("contribute"))) -> JSONResponse:
    body = await request.body()
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype in ("application/gzip", "application/x-gzip", "application/octet-stream"):
        try:  # a dry run of the extraction: refuse a hostile or malformed tarball before queuing it
            with tempfile.TemporaryDirectory(prefix="appmem-check-") as tmp:
                safe_extract(body, FsPath(tmp))
        except InputFormatError as exc:
            raise HTTPException(422, str(exc)) from None
        return _queue(request, "droidbot", body)
    if ctype != "application/json":
        raise HTTPException(415, "send application/json (a run trace) or application/gzip (a DroidBot tar.gz)")
    try:
        raw = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise HTTPException(422, f"body: not JSON ({exc.msg if hasattr(exc, 'msg') else 'bad encoding'})") from None
    try:
        run = scrub_run(validate_run(raw, "body"))
        run_trace(run)  # its dumps parse and its elements are in them: refuse it now, not in the worker
    except InputFormatError as exc:
        raise HTTPException(422, str(exc)) from None
    return _queue(request, "run", run.model_dump_json().encode())


@router.get("/traces/{trace_id}", name="trace_status", response_model=ContributionStatus,
            summary="a contribution's status: pending, done or failed with a reason")
def trace_status(request: Request, trace_id: str = Path(min_length=1, max_length=64, pattern=r"^[0-9a-f]+$"),
                 _=Depends(require("contribute"))) -> ContributionStatus:
    found = request.app.state.services.contributions.status(trace_id)
    if found is None:
        raise HTTPException(404, f"no contribution {trace_id!r}")
    return ContributionStatus(**{k: v for k, v in found.items() if k != "contributor"})


@router.post("/corrections", status_code=202, response_model=Accepted,
             summary="a person's fix of a step, stored as a high-trust observation")
def post_correction(body: CorrectionRequest, request: Request, _=Depends(require("contribute"))) -> JSONResponse:
    step = RunStep(index=0, action=body.action, element=body.element, input=body.input, before_xml=body.before_xml,
                   after_xml=body.after_xml, before_activity=body.before_activity,
                   after_activity=body.after_activity, outcome="ok")
    now = now_iso()
    run = RunTrace(task=body.task, package=body.package, app_version=body.app_version, device="correction",
                   started=now, ended=now, status="done", steps=[step])
    try:
        run = scrub_run(run)
        run_trace(run)
    except InputFormatError as exc:
        raise HTTPException(422, str(exc)) from None
    return _queue(request, "correction", run.model_dump_json().encode())
