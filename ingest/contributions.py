"""Contributions from devices: run traces, DroidBot folders (tar.gz) and corrections, queued then ingested.

The API validates and scrubs a contribution, parks its body in Redis (with a
TTL) under a new id, sets its status `pending` and queues the Celery task
`appmem.ingest_contribution` with the id. The task (`ingest_contribution`
here) writes it into the graph like any import, as observations only (merges
add counts, nothing is deleted or overwritten), then records the
contributor's votes on the edges it touched (graph/votes.py), and sets the
status `done` with a report or `failed` with a reason.

Tarballs are extracted defensively: regular files and folders only, no
absolute paths or `..`, at most MAX_MEMBERS members and MAX_UNPACKED bytes.
"""
from __future__ import annotations

import base64
import io
import json
import logging
import secrets
import shutil
import tarfile
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path, PurePosixPath
from typing import Any

import redis

from appmem import generations
from appmem.errors import AppmemError, InputFormatError, TransientError
from contract.run import RunTrace
from graph.rows import build_rows
from graph.store import GraphStore
from graph.votes import CORRECTION_WEIGHT, vote_rows
from ingest.pipeline import ingest_trace, scrub_trace
from formats.privacy import scrub_text
from ingest.run import ingest_run, validate_run

log = logging.getLogger(__name__)

PREFIX = "appmem:contrib:"
BODY_TTL_S = 24 * 3600
STATUS_TTL_S = 30 * 24 * 3600
MAX_MEMBERS = 20_000
MAX_UNPACKED = 256 * 1024 * 1024
INGEST_TASK = "appmem.ingest_contribution"
INGEST_QUEUE = "ingest"
KINDS = ("run", "droidbot", "correction")


def scrub_xml(xml: str) -> str:
    """A dump with personal data replaced in every text and content description (formats/privacy.py)."""
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as exc:
        raise InputFormatError("dump", f"malformed XML: {exc}") from None
    for node in root.iter("node"):
        editable = "EditText" in (node.get("class") or "")
        for attr in ("text", "content-desc"):
            if node.get(attr):
                node.set(attr, scrub_text(node.get(attr), typed=editable))
    return ET.tostring(root, encoding="unicode")


def scrub_run(run: RunTrace) -> RunTrace:
    """The run with its task, typed inputs, element texts and dumps scrubbed before it is stored anywhere."""
    steps = []
    for step in run.steps:
        element = step.element.model_copy(update={"text": scrub_text(step.element.text),
                                                  "content_desc": scrub_text(step.element.content_desc)}) \
            if step.element else None
        steps.append(step.model_copy(update={
            "input": scrub_text(step.input, typed=True) if step.action == "input" else step.input,
            "element": element, "before_xml": scrub_xml(step.before_xml), "after_xml": scrub_xml(step.after_xml)}))
    return run.model_copy(update={"task": scrub_text(run.task), "steps": steps})


def safe_extract(data: bytes, dest: Path) -> Path:
    """Unpack a DroidBot tar.gz into `dest` defensively; returns the folder holding utg.js."""
    try:
        tar = tarfile.open(fileobj=io.BytesIO(data), mode="r:gz")
        members = tar.getmembers()
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise InputFormatError("tarball", f"not a gzip-compressed tar: {exc}") from None
    if len(members) > MAX_MEMBERS:
        raise InputFormatError("tarball", f"more than {MAX_MEMBERS} members")
    total = 0
    for m in members:
        path = PurePosixPath(m.name)
        if path.is_absolute() or ".." in path.parts:
            raise InputFormatError("tarball", f"unsafe path {m.name!r}")
        if not (m.isfile() or m.isdir()):
            raise InputFormatError("tarball", f"{m.name!r} is not a regular file or folder")
        total += m.size
        if total > MAX_UNPACKED:
            raise InputFormatError("tarball", f"unpacks to more than {MAX_UNPACKED} bytes")
    with tar:
        for m in members:
            target = dest.joinpath(*PurePosixPath(m.name).parts)
            if m.isdir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            with tar.extractfile(m) as src, open(target, "wb") as out:
                shutil.copyfileobj(src, out)
    found = sorted(dest.rglob("utg.js"), key=lambda p: len(p.parts))
    if not found:
        raise InputFormatError("tarball", "no utg.js: not a DroidBot output folder")
    return found[0].parent


class Contributions:
    """Status and parked bodies (base64: the client decodes responses) of contributions, in Redis."""

    def __init__(self, r: redis.Redis):
        self.r = r

    def create(self, kind: str, contributor: str, body: bytes) -> str:
        cid = secrets.token_hex(12)
        pipe = self.r.pipeline()
        pipe.hset(PREFIX + cid, mapping={"kind": kind, "contributor": contributor, "status": "pending", "reason": ""})
        pipe.expire(PREFIX + cid, STATUS_TTL_S)
        pipe.set(PREFIX + cid + ":body", base64.b64encode(body).decode("ascii"), ex=BODY_TTL_S)
        pipe.execute()
        return cid

    def status(self, cid: str) -> dict[str, Any] | None:
        raw = self.r.hgetall(PREFIX + cid)
        if not raw:
            return None
        data = dict(raw)
        return {"trace_id": cid, "status": data["status"], "kind": data["kind"], "reason": data.get("reason", ""),
                "report": json.loads(data["report"]) if data.get("report") else None,
                "contributor": data["contributor"]}

    def finish(self, cid: str, report: dict | None = None, reason: str = "") -> None:
        mapping = {"status": "failed" if reason else "done", "reason": reason}
        if report is not None:
            mapping["report"] = json.dumps(report)
        self.r.hset(PREFIX + cid, mapping=mapping)
        self.r.delete(PREFIX + cid + ":body")


def ingest_contribution(store: GraphStore, r: redis.Redis, cid: str, chunk_steps: int = 200) -> dict:
    """Ingest one parked contribution and record its status; a bad one fails with the reason, never raises
    for bad input (a transient graph error is raised, for the task's bounded retry)."""
    board = Contributions(r)
    info = board.status(cid)
    parked = r.get(PREFIX + cid + ":body")
    body = base64.b64decode(parked) if parked else None
    if info is None or body is None:
        return {"status": "failed", "reason": "unknown or expired contribution"}
    try:
        report = _ingest(store, info["kind"], info["contributor"], body, chunk_steps)
    except TransientError:
        raise
    except AppmemError as exc:
        board.finish(cid, reason=str(exc))
        return {"status": "failed", "reason": str(exc)}
    board.finish(cid, report=report)
    generations.bump(r, [report["package"]])  # the app changed: every server process stops serving its cached plans
    return {"status": "done", **report}


def _ingest(store: GraphStore, kind: str, contributor: str, body: bytes, chunk_steps: int) -> dict:
    weight = CORRECTION_WEIGHT if kind == "correction" else 1.0
    if kind == "droidbot":
        from ingest.droidbot import read_recording, recording_trace

        with tempfile.TemporaryDirectory(prefix="appmem-contrib-") as tmp:
            folder = safe_extract(body, Path(tmp))
            trace = recording_trace(read_recording(folder), device=f"contributor:{contributor}")
        store.ensure_schema()
        report = ingest_trace(store, trace, chunk_steps).as_dict()
    else:
        store.ensure_schema()
        run = validate_run(json.loads(body), "contribution")
        report, imported = ingest_run(store, run, f"{kind}:{contributor}", chunk_steps)
        trace = imported.trace
    clean = scrub_trace(trace)
    rows = build_rows(clean, clean.steps, list(clean.states.values())).transitions
    votes = store.write("merge_votes", trace_id=trace.id, contributor=f"{kind}:{contributor}", weight=weight,
                        rows=vote_rows(trace.id, f"{kind}:{contributor}", rows))
    if votes and votes[0]["votes"]:
        store.write("edge_crowd", rows=rows)
    return {**report, "graph_trace_id": trace.id, "package": trace.package}
