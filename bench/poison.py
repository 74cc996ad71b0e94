"""Benchmark: can one API key steer what other users get? Plans before and after its forged traces.

Memory: the shared DroidBot recordings of --apps, imported (a crawl's data) and summarised.
Tasks: built from the recorded graph (tests/twin_tasks.py `recorded_tasks`), up to --tasks per app.
One key then sends, through the real API and a real Celery ingest worker, --copies times each,
for every task's plan (tests/twin_tasks.py `forged_runs`, dumps rendered by the app twins):
  - a one-tap shortcut: the plan's first element said to lead straight to the plan's last screen
    (skipping the real screens between), in a `done` run;
  - a `failed` run claiming every step of the real route did nothing;
  - the route's screens sent again as its own: their dumps without their activities, under a version
    of its own (a screen every agent's dump of them might then be located on).
Every forged trace is valid and accepted (checked). Then every plan is asked again, from the app's
entry and from the device's dump of the plan's start screen (as an agent on that screen asks).

Recall (a recall/trust bench: the memory holds demonstrations of the very tasks asked, on purpose):
for up to --recall-tasks runtime targets per app (tests/twin_tasks.py `unseen_targets`, labels other
than the tasks above, asked as "tap 'LABEL'" with the app named) the runtime runs the task on the app's
twin through the adb protocol from the target's start state; each done run is imported as one's own run
twice (two equal stored tasks, as tests/api/test_crowd.py does), then summarised, and only tasks whose
plan is then a recall are kept. The same key then also forges run OUTCOMES (the flow-back path, `recalled_task`), --copies
times: a failed run naming the stored task recall chose, and its own forged demonstration of the task
(the plan's one-tap shortcut, else a copy of the real run) followed by done runs naming that forged task.
After each batch memory is summarised again (as an operator would), and every recall plan is asked again:
its recalled task and its steps must be identical.

Target: 0 plans and 0 recalls changed with the trust rule (APPMEM_TRUST_QUORUM, default 3
contributors). Baseline, same run, same memory and traces: the worker restarted with a quorum of 1
(one key trusted, as before the rule) and the same traces sent again (later dates), so the plans and
recalls they would change are counted. TWINS ARE SIMULATORS: they only render the recorded screens the forged traces carry.

    .venv/bin/python -m appmem.bench.poison [--apps a,b] [--tasks 8] [--recall-tasks 4] [--copies 3] [--json]
"""
from __future__ import annotations

import json
import logging
import os
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path


from appmem.bench.common import (BenchParser, droidbot_folders, free_port, markdown_table, private_stack,
                                  write_results)

import adbutils
import uvicorn

from appmem.api.app import create_app
from appmem.contract.client import ApiClient
from appmem.agent.service import Service
from appmem import generations
from appmem.keys import KeyStore
from appmem.stack import Stack
from appmem.ingest.droidbot import read_recording, recording_trace
from appmem.device.driver import DeviceDriver
from appmem.ingest.pipeline import ingest_trace
from appmem.runtime.commands import contribute_locally
from appmem.runtime.runtime import Runtime
from appmem.semantic.pipeline import summarize
from appmem.semantic.summaries import DeterministicSummarizer
from tests.twin_tasks import forged_runs, recorded_tasks, screen_dump, unseen_targets
from appmem.twins.adb_server import TwinServer
from appmem.twins.app import TwinApp
from appmem.twins.device import build_fleet
from appmem.workers.crawl import WorkerProcesses
from appmem.workers.devices import open_redis

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


def send_all(url: str, key: str, runs: list[dict], statuses: dict[str, int]) -> list[dict]:
    """Send `runs`, wait for each; counts their statuses into `statuses`, returns their reports in order."""
    with ApiClient(url, key) as api:
        ids = [api.contribute(run).trace_id for run in runs]
        reports = [api.wait_trace(cid, 120).model_dump() for cid in ids]
    for r in reports:
        statuses[r["status"]] = statuses.get(r["status"], 0) + 1
    return [r["report"] or {} for r in reports]


def demonstrations(settings, memory: Service, fleet: dict, packages: list[str], per_app: int,
                   taken: set[str]) -> list[tuple]:
    """(package, task, run) for the runtime targets (`tap 'LABEL'`) the runtime does on the twins, each done run imported
    as one's own run twice: two equal stored tasks, so which one recall chooses is up to their run counts.
    Labels in `taken` (the planner's tasks above) are left out: their plans stay the planner's."""
    device = fleet["twin-0001"]
    out = []
    with TwinServer(fleet) as server:
        for package in packages:
            targets = [t for t in unseen_targets(memory.store, device.apps[package], 10_000) if t["label"] not in taken]
            for target in targets[:per_app]:
                server.reset("twin-0001")
                device.goto(package, target["start"])
                driver = DeviceDriver(adbutils.AdbClient("127.0.0.1", server.port).device("twin-0001"), "twin-0001")
                task = f"tap '{target['label']}'"  # a plan drops a named package from the text: none here
                run = Runtime(driver, memory, lambda step: True).run(task, package)["run"]
                if run["status"] == "done" and run["steps"]:
                    for started in ("2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"):
                        contribute_locally(settings, memory, {**run, "started": started})
                    out.append((package, task, run))
    return out


def forged_outcomes(device, plan: dict, run: dict, started: str) -> tuple[dict, dict]:
    """The key's own demonstration of a recalled task (the plan's one-tap shortcut, else a copy of the real
    run), and its failed run naming the task recall chose (its route claimed failed, else the real run's)."""
    forged = {r["status"]: r for r in forged_runs(device, plan, plan["task"], started)}
    copy = {**run, "device": device.serial, "started": started}
    failed = forged.get("failed", {**copy, "status": "failed", "started": started.replace("Z", ".5Z")})
    return forged.get("done", copy), {**failed, "recalled_task": plan["recalled"]["task_id"]}


def recall_shape(plan: dict) -> list:
    return [(plan.get("recalled") or {}).get("task_id")] + shape(plan)


def main() -> int:
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per request otherwise
    parser = BenchParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apps", type=droidbot_folders, default=DEFAULT_APPS, help="comma-separated DroidBot folder names")
    parser.add_argument("--tasks", type=int, default=8, help="tasks per app")
    parser.add_argument("--recall-tasks", type=int, default=4, help="stored (recalled) tasks per app")
    parser.add_argument("--copies", type=int, default=3, help="how often the key sends each forged trace")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    folders = args.apps
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
            summarizer = DeterministicSummarizer(settings.risky_words)
            summarize(memory.store, memory.vectors, memory.embedder, summarizer, packages)
            fleet = build_fleet(folders, 1)
            device = fleet["twin-0001"]
            planned = [(p, t) for p in packages for t in recorded_tasks(memory.store, p, args.tasks)]
            tasks = [(p, t["task"]) for p, t in planned]
            demos = demonstrations(settings, memory, fleet, packages, args.recall_tasks, {t["label"] for _, t in planned})
            summarize(memory.store, memory.vectors, memory.embedder, summarizer, packages)
            redis_db = open_redis(Stack(settings).redis_url())
            generations.bump(redis_db, packages)
            port = free_port()
            unlimited = replace(settings, contrib_per_minute=10**6, contrib_per_day=10**6, contrib_pending=10**6)
            server = uvicorn.Server(uvicorn.Config(create_app(unlimited, memory), host="127.0.0.1", port=port,
                                                   log_level="warning"))
            threading.Thread(target=server.run, daemon=True).start()
            while not server.started:
                time.sleep(0.05)
            url = f"http://127.0.0.1:{port}"
            _, attacker = KeyStore(redis_db).create("attacker", "contribute", 1000)  # quotas lifted: many traces
            before = {t: memory.plan(t[1], t[0]).model_dump() for t in tasks}
            # the agent's screen: the device's dump of each plan's start (where a recorded state shows it)
            starts = {t: dump for t in tasks if (start := (before[t]["start"] or {}).get("screen_id"))
                      and (dump := screen_dump(device, t[0], start))}
            located = lambda: {t: memory.plan(t[1], t[0], screen_xml=xml).model_dump()  # noqa: E731
                               for t, (xml, _) in starts.items()}
            from_screen = located()
            recalls = {(p, task): (run, memory.plan(task, p).model_dump()) for p, task, run in demos}
            recalls = {t: v for t, v in recalls.items() if v[1]["source"] == "recall"}
            runs = [run for i in range(args.copies) for (p, task), plan in before.items()
                    for run in forged_runs(device, plan, task, f"2026-03-{i + 1:02d}T00:00:00Z")]
            rows = {}
            for label, quorum, day in (("trust rule", settings.trust_quorum, 10), ("quorum 1 (baseline)", 1, 20)):
                env = {**stack_env(settings), "APPMEM_TRUST_QUORUM": str(quorum)}
                month = f"2026-{day // 10 + 3:02d}-"
                workers = WorkerProcesses(1, ["ingest"], Path(logs) / label.split()[0], env=env).start()
                statuses: dict[str, int] = {}
                try:
                    batch = [{**r, "started": r["started"].replace("2026-03-", month)} for r in runs]
                    send_all(url, attacker, batch, statuses)
                    # outcomes: its own demonstration of each recalled task, then (copies times) a failed run
                    # naming the task recall chose and a done run naming its own forged task
                    own, failed = [], []
                    for n, (run, plan) in enumerate(recalls.values()):
                        o, f = forged_outcomes(device, plan, run, f"{month}01T00:{n:02d}:00Z")
                        own.append(o)
                        failed.append(f)
                    forged_ids = [r.get("task") for r in send_all(url, attacker, own, statuses)]
                    outcomes = [{**r, "started": f"{month}{i + 2:02d}T01:{n:02d}:00Z"} for i in range(args.copies)
                                for n, r in enumerate(failed + [{**o, "recalled_task": t}
                                                                for o, t in zip(own, forged_ids) if t])]
                    counted = sum(bool((r.get("recalled_task") or {}).get("counted"))
                                  for r in send_all(url, attacker, outcomes, statuses))
                finally:
                    workers.stop()
                summarize(memory.store, memory.vectors, memory.embedder, summarizer, packages)
                generations.bump(redis_db, packages)
                after = {t: memory.plan(t[1], t[0]).model_dump() for t in tasks}
                changed = [f"{p}: {task}" for (p, task) in tasks if shape(before[(p, task)]) != shape(after[(p, task)])]
                after_screen = located()
                changed += [f"{p}: {task} (from its start screen's dump)" for (p, task) in starts
                            if shape(from_screen[(p, task)]) != shape(after_screen[(p, task)])]
                recalled = {t: memory.plan(t[1], t[0]).model_dump() for t in recalls}
                moved = [f"{p}: {task}" for (p, task), (_, plan) in recalls.items()
                         if recall_shape(plan) != recall_shape(recalled[(p, task)])]
                to_forged = sum((p.get("recalled") or {}).get("task_id") in forged_ids for p in recalled.values())
                rows[label] = {"quorum": quorum, "traces": len(batch) + len(own) + len(outcomes),
                               "recall_plans_among_plans": sum(before[t]["source"] == "recall" for t in tasks),
                               "outcome_traces": len(outcomes), "outcomes_counted": counted, "statuses": statuses,
                               "plans": len(tasks) + len(starts), "changed": len(changed), "changed_tasks": changed,
                               "recalls": len(recalls), "recalls_changed": len(moved), "changed_recalls": moved,
                               "recalls_of_forged_tasks": to_forged}
            server.should_exit = True
        finally:
            memory.close()
    write_results("poison", markdown_table(
        ["rule", "quorum", "forged traces", "plans changed", "recalls changed", "forged outcomes counted",
         "the key's forged task recalled"],
        [[label, r["quorum"], r["traces"], f"{r['changed']}/{r['plans']}", f"{r['recalls_changed']}/{r['recalls']}",
          f"{r['outcomes_counted']}/{r['outcome_traces']}", r["recalls_of_forged_tasks"]] for label, r in rows.items()]),
        rows, "the same memory and forged traces with a quorum of 1 (one key trusted)",
        "TWINS ARE SIMULATORS: the forged traces carry dumps the twins render from the recordings. One key sends "
        "forged run traces and run outcomes through the API and a real ingest worker.")
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    print("TWINS ARE SIMULATORS: the forged traces carry dumps the twins render from the recordings.")
    print("A recall/trust bench: memory holds the runtime's own demonstrations of the recalled tasks.")
    for label, r in rows.items():
        print(f"{label:<22} quorum {r['quorum']}: {r['traces']} forged traces {r['statuses']}, "
              f"plans changed {r['changed']}/{r['plans']}, recalls changed (task or steps) "
              f"{r['recalls_changed']}/{r['recalls']} ({r['outcome_traces']} forged outcomes, "
              f"{r['outcomes_counted']} counted; the key's own forged task recalled {r['recalls_of_forged_tasks']})")
        for task in (r["changed_tasks"] + r["changed_recalls"])[:10]:
            print(f"    changed: {task}")
    trusted = rows["trust rule"]
    return 0 if trusted["changed"] == 0 and trusted["recalls_changed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
