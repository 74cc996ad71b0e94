"""A crawl: devices registered, Celery workers running, jobs enqueued, waited on and summarised.

`appmem crawl` (workers/commands.py) and the benchmark compose these pieces:
- `WorkerProcesses`: real `celery -A workers.celery_app worker` processes (one
  prefork child each), with the caller's environment (APPMEM_* settings);
- `plan_jobs`: one job per app, or several when the budget exceeds
  `max_job_actions` (same run id, different seeds: frontier workers of one app
  share their claims);
- `enqueue` / `wait_jobs`: send the jobs, then poll the job board, showing
  progress, re-enqueueing jobs whose owner died (`reap_orphans`), riding out a
  Redis restart (bounded) or failing with a message that says what is kept;
- `summarize`: per app, from the graph (what was really ingested):
  `states_discovered` (distinct states off the home screen), `recorded_states`
  and `coverage` (twins: the share of the recording's states the crawl reached,
  states compared by the dump-visible content hash, formats/uixml.py),
  `outside_recording` (crawled states the recording does not have), `actions`,
  `wall_s`; and the graph's duplicate counts.
"""
from __future__ import annotations

import logging
import math
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import redis
from celery import Celery

from appmem.errors import StackError
from appmem.formats.ui import stable_id
from appmem.graph.times import now_iso
from appmem.graph.store import GraphStore
from appmem.graph.vocabulary import is_launcher
from appmem.workers.devices import JobBoard
from appmem.workers.jobspec import JobSpec, trace_id
from appmem.workers.jobs import reap_orphans
from appmem.formats.uixml import shown_state_id

log = logging.getLogger(__name__)

REDIS_OUTAGE_S = 60.0
EXPLORE_TASK = "appmem.explore"  # workers/tasks.py


def recorded_states(folder: Path) -> tuple[str, set[str]]:
    """(package, the states of its DroidBot recording as a crawl sees them, home screens aside)."""
    from appmem.ingest.droidbot import read_recording

    rec = read_recording(folder)
    return rec.package, {shown_state_id(s) for s in rec.states.values() if not is_launcher(s.package)}


def plan_jobs(run_id: str, packages: list[str], policy: str, budget: int, max_job_actions: int,
              **options: object) -> list[JobSpec]:
    """Jobs of a run: `budget` actions per app, split in parts of at most `max_job_actions`."""
    out = []
    options.setdefault("run_started", now_iso())
    for package in packages:
        parts = max(1, math.ceil(budget / max_job_actions))
        for part in range(parts):
            share = budget // parts + (1 if part < budget % parts else 0)
            out.append(JobSpec.from_dict({**options, "job_id": stable_id("job", run_id, package, part),
                                          "run_id": run_id, "package": package, "policy": policy,
                                          "max_actions": share, "seed": part}))
    return out


def enqueue(celery: Celery, r: redis.Redis, specs: list[JobSpec]) -> None:
    board = JobBoard(r)
    for spec in specs:
        board.create(spec.run_id, spec.job_id, spec.as_dict())
        send(celery, spec.as_dict())


def send(celery: Celery, spec: dict) -> None:
    """Send the `explore` task of a job to its queue (by name: the sender needs no task code)."""
    options = {k: v for k, v in spec.items() if k not in ("job_id", "package", "policy", "max_actions")}
    celery.send_task(EXPLORE_TASK, args=(spec["job_id"], spec["package"], spec["policy"], spec["max_actions"]),
                     kwargs=options, queue=spec["queue"])


@dataclass
class WorkerProcesses:
    """Celery worker processes started (and stopped) by this process."""

    count: int
    queues: list[str]
    log_dir: Path
    env: dict[str, str] = field(default_factory=lambda: dict(os.environ))
    loglevel: str = "INFO"
    procs: list[subprocess.Popen] = field(default_factory=list)

    def start(self) -> "WorkerProcesses":
        self.log_dir.mkdir(parents=True, exist_ok=True)
        for i in range(self.count):
            self.procs.append(self.spawn(f"w{i + 1}"))
        return self

    def spawn(self, name: str) -> subprocess.Popen:
        argv = [sys.executable, "-m", "celery", "-A", "appmem.workers.celery_app", "worker", "-Q", ",".join(self.queues),
                "-c", "1", "--pool", "prefork", "-n", f"appmem-{name}-{os.getpid()}@%h", "-l", self.loglevel,
                "--without-gossip", "--without-mingle", "--without-heartbeat"]
        with open(self.log_dir / f"celery-{name}.log", "ab") as fh:
            return subprocess.Popen(argv, stdout=fh, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    env=self.env, start_new_session=True)

    def kill(self, index: int, sig: int = signal.SIGKILL) -> None:
        """Signal a worker's whole process group (its main process and pool child)."""
        os.killpg(self.procs[index].pid, sig)
        self.procs[index].wait(timeout=10)

    def stop(self, timeout: float = 15.0) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        for proc in self.procs:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=5)

    def __enter__(self) -> "WorkerProcesses":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


Progress = Callable[[dict[str, dict]], None]


def wait_jobs(celery: Celery, r: redis.Redis, run_id: str, timeout_s: float, progress: Progress | None = None,
              poll_s: float = 0.5) -> dict[str, dict]:
    """Wait until every job of the run is done or failed; returns the job records."""
    board = JobBoard(r)
    deadline = time.monotonic() + timeout_s
    outage_since: float | None = None
    while True:
        try:
            reap_orphans(r, run_id, lambda spec: send(celery, spec))
            records = {j: board.get(j) for j in board.jobs(run_id)}
            outage_since = None
        except redis.RedisError as exc:
            outage_since = outage_since or time.monotonic()
            if time.monotonic() - outage_since > REDIS_OUTAGE_S:
                raise StackError(f"Redis unreachable for {REDIS_OUTAGE_S:.0f}s ({exc}); the crawl stopped. "
                                 f"Chunks already written stay in the graph; rerun with the same --run-id "
                                 f"to resume the jobs where their traces end") from exc
            print(f"\rcrawl: Redis unreachable ({exc}); waiting", file=sys.stderr, end="", flush=True)
            time.sleep(1.0)
            continue
        if progress:
            progress(records)
        if records and all(rec.get("status") in ("done", "failed") for rec in records.values()):
            return records
        if time.monotonic() > deadline:
            raise StackError(f"crawl {run_id}: jobs still running after {timeout_s:.0f}s: "
                             + ", ".join(f"{j} ({rec.get('status')})" for j, rec in records.items()
                                         if rec.get("status") not in ("done", "failed")))
        time.sleep(poll_s)


def progress_line(records: dict[str, dict]) -> None:
    done = sum(rec.get("status") == "done" for rec in records.values())
    failed = sum(rec.get("status") == "failed" for rec in records.values())
    actions = sum(int(rec.get("actions") or 0) for rec in records.values())
    print(f"\rcrawl: {done}/{len(records)} jobs done, {failed} failed, {actions} actions", file=sys.stderr,
          end="", flush=True)


def summarize(store: GraphStore, records: dict[str, dict], recorded: dict[str, set[str]] | None,
              wall_s: float) -> dict:
    """Per app and in total: what the crawl put in the graph, and how much of the recordings it covers."""
    by_app: dict[str, list[dict]] = {}
    for rec in records.values():
        by_app.setdefault(rec["spec"]["package"], []).append(rec)
    apps: dict[str, dict] = {}
    for package, recs in sorted(by_app.items()):
        traces = [trace_id(rec["spec"]["job_id"]) for rec in recs]
        seen = {row["state_id"] for row in store.read("explore_run_states", trace_ids=traces)
                if not is_launcher(row["package"])}
        started = [float(rec["started_at"]) for rec in recs if rec.get("started_at")]
        finished = [float(rec["finished_at"]) for rec in recs if rec.get("finished_at")]
        row: dict = {"states_discovered": len(seen), "actions": sum(int(rec.get("actions") or 0) for rec in recs),
                     "jobs": len(recs), "failed": [rec.get("error") for rec in recs if rec.get("status") == "failed"],
                     "wall_s": round(max(finished) - min(started), 2) if started and finished else None,
                     "recorded_states": None, "coverage": None}
        if recorded is not None and package in recorded:
            known = recorded[package]
            row.update(recorded_states=len(known), coverage=round(len(seen & known) / len(known), 3) if known else None,
                       outside_recording=len(seen - known))
        apps[package] = row
    integrity = store.read("explore_integrity")[0]
    covered = [a["coverage"] for a in apps.values() if a["coverage"] is not None]
    totals = {"apps": len(apps), "jobs": len(records), "actions": sum(a["actions"] for a in apps.values()),
              "states_discovered": sum(a["states_discovered"] for a in apps.values()),
              "failed_jobs": sum(len(a["failed"]) for a in apps.values()), "wall_s": round(wall_s, 2),
              "mean_coverage": round(sum(covered) / len(covered), 3) if covered else None,
              "duplicate_nodes": integrity["duplicate_nodes"],
              "duplicate_relationships": integrity["duplicate_relationships"]}
    if recorded is not None:
        totals["recorded_states"] = sum(len(recorded.get(p, ())) for p in apps)
    totals["actions_per_s"] = round(totals["actions"] / wall_s, 1) if wall_s > 0 else None
    return {"apps": apps, "totals": totals}
