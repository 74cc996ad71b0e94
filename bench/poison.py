"""Benchmark: can one API key steer what other users get? Plans before and after its forged traces.

Memory: the shared DroidBot recordings of --apps, imported (a crawl's data) and summarised.
Tasks: built from the recorded graph (tests/twin_tasks.py `recorded_tasks`), up to --tasks per app.
One key then sends, through the real API and a real Celery ingest worker, --copies times each,
for every task's plan (tests/twin_tasks.py `forged_runs`, dumps rendered by the app twins):
  - a one-tap shortcut: the plan's first element said to lead straight to the plan's last screen
    (skipping the real screens between), in a `done` run;
  - a `failed` run claiming every step of the real route did nothing.
Every forged trace is valid and accepted (checked). Then every plan is asked again.

Target: 0 plans changed with the trust rule (APPMEM_TRUST_QUORUM, default 3 contributors).
Baseline, same run, same memory and traces: the worker restarted with a quorum of 1 (one key
trusted, as before the rule) and the same traces sent again, so the plans they would change are
counted. TWINS ARE SIMULATORS: they only render the recorded screens the forged traces carry.

    .venv/bin/python bench/poison.py [--apps a,b] [--tasks 8] [--copies 3] [--json]
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import DROIDBOT, free_port, private_stack  # noqa: E402

import uvicorn  # noqa: E402

from api.app import create_app  # noqa: E402
from contract.client import ApiClient  # noqa: E402
from agent.service import Service  # noqa: E402
from appmem.keys import KeyStore  # noqa: E402
from appmem.stack import Stack  # noqa: E402
from ingest.droidbot import read_recording, recording_trace  # noqa: E402
from ingest.pipeline import ingest_trace  # noqa: E402
from semantic.pipeline import summarize  # noqa: E402
from semantic.summaries import DeterministicSummarizer  # noqa: E402
from tests.twin_tasks import forged_runs, recorded_tasks  # noqa: E402
from twins.app import TwinApp  # noqa: E402
from twins.device import build_fleet  # noqa: E402
from workers.crawl import WorkerProcesses  # noqa: E402
from workers.devices import open_redis  # noqa: E402

DEFAULT_APPS = "anupam.acrylic,com.lolo.io.onelist,org.ligi.ajsha,ch.abertschi.adfree"


def shape(plan: dict) -> list:
    """What a user gets from a plan: its route, step by step."""
    return [plan.get("route"), plan.get("source")] + [
        (s["action"], (s["element"] or {}).get("id"), s["screen_id"], s["to_screen"], s.get("input"))
        for s in plan["steps"]]


def stack_env(settings) -> dict[str, str]:
    return {**os.environ, "APPMEM_HOME": str(settings.home),
            "APPMEM_ARCADEDB_BOLT_PORT": str(settings.arcadedb_bolt_port),
            "APPMEM_ARCADEDB_HTTP_PORT": str(settings.arcadedb_http_port),
            "APPMEM_REDIS_PORT": str(settings.redis_port)}


def send_all(url: str, key: str, runs: list[dict]) -> dict[str, int]:
    statuses: dict[str, int] = {}
    with ApiClient(url, key) as api:
        ids = [api.contribute(run).trace_id for run in runs]
        for cid in ids:
            status = api.wait_trace(cid, 120).model_dump()["status"]
            statuses[status] = statuses.get(status, 0) + 1
    return statuses


def main() -> int:
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per request otherwise
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apps", default=DEFAULT_APPS, help="comma-separated DroidBot folder names")
    parser.add_argument("--tasks", type=int, default=8, help="tasks per app")
    parser.add_argument("--copies", type=int, default=3, help="how often the key sends each forged trace")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    folders = [DROIDBOT / a for a in args.apps.split(",")]
    with private_stack() as settings, tempfile.TemporaryDirectory(prefix="appmem-poison-") as logs:
        memory = Service.open(settings)
        try:
            memory.store.ensure_schema()
            packages = []
            for folder in folders:
                version = TwinApp.from_droidbot(folder).version
                trace = recording_trace(read_recording(folder), app_version=version)
                ingest_trace(memory.store, trace, settings.ingest_chunk_steps)
                packages.append(trace.package)
            summarize(memory.store, memory.vectors, memory.embedder, DeterministicSummarizer(settings.risky_words),
                      packages)
            tasks = [(p, t["task"]) for p in packages for t in recorded_tasks(memory.store, p, args.tasks)]
            port = free_port()
            unlimited = replace(settings, contrib_per_minute=10**6, contrib_per_day=10**6, contrib_pending=10**6)
            server = uvicorn.Server(uvicorn.Config(create_app(unlimited, memory), host="127.0.0.1", port=port,
                                                   log_level="warning"))
            threading.Thread(target=server.run, daemon=True).start()
            while not server.started:
                time.sleep(0.05)
            url = f"http://127.0.0.1:{port}"
            keys = KeyStore(open_redis(Stack(settings).redis_url()))
            _, attacker = keys.create("attacker", "contribute", 1000)  # quotas lifted: one key, many traces
            before = {t: memory.plan(t[1], t[0]).model_dump() for t in tasks}
            device = build_fleet(folders, 1)["twin-0001"]
            runs = [run for i in range(args.copies) for (p, task), plan in before.items()
                    for run in forged_runs(device, plan, task, f"2026-03-{i + 1:02d}T00:00:00Z")]
            rows = {}
            for label, quorum, day in (("trust rule", settings.trust_quorum, 10), ("quorum 1 (baseline)", 1, 20)):
                env = {**stack_env(settings), "APPMEM_TRUST_QUORUM": str(quorum)}
                workers = WorkerProcesses(1, ["ingest"], Path(logs) / label.split()[0], env=env).start()
                try:
                    batch = [{**r, "started": r["started"].replace("2026-03-", f"2026-{day // 10 + 3:02d}-")}
                             for r in runs]
                    statuses = send_all(url, attacker, batch)
                finally:
                    workers.stop()
                after = {t: memory.plan(t[1], t[0]).model_dump() for t in tasks}
                changed = [f"{p}: {task}" for (p, task) in tasks if shape(before[(p, task)]) != shape(after[(p, task)])]
                rows[label] = {"quorum": quorum, "traces": len(batch), "statuses": statuses,
                               "plans": len(tasks), "changed": len(changed), "changed_tasks": changed}
            server.should_exit = True
        finally:
            memory.close()
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    print("TWINS ARE SIMULATORS: the forged traces carry dumps the twins render from the recordings.")
    for label, r in rows.items():
        print(f"{label:<22} quorum {r['quorum']}: {r['traces']} forged traces {r['statuses']}, "
              f"plans changed {r['changed']}/{r['plans']}")
        for task in r["changed_tasks"][:10]:
            print(f"    changed: {task}")
    return 0 if rows["trust rule"]["changed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
