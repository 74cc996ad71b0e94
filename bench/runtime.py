"""Benchmark: `appmem run` on app twins. How often the runtime reaches a task's target, per app.

TWINS ARE SIMULATORS: each replays a DroidBot recording behind the real adb protocol
(twins/), so a tap the recording never took changes nothing. Every figure here depends
on them.

Memory: each shared DroidBot app's recording, imported under the version its twin
reports (as a device's own runs would be), summarised deterministically. Tasks: built
from the recorded graph (tests/twin_tasks.py: "tap LABEL" for a uniquely labelled
recorded tap, its target the screen that tap led to), up to --tasks per app. A run
counts as *reached* when it ends `done` and one of its steps reached the target screen,
and as *ended there* when its last step did (a plan may go on past the target: the
planner confirms a form or dialog the target opens, e.g. SAVE after opening an editor).

Baseline, same run, same tasks and memory: the runtime with no re-planning
(`max_replans=0`), i.e. the plan executed as first answered, with the same grounding.

    .venv/bin/python bench/runtime.py [--apps a,b] [--tasks 8] [--json]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import DROIDBOT, private_stack  # noqa: E402

import adbutils  # noqa: E402

from runtime.runtime import Runtime  # noqa: E402
from agent.service import Service  # noqa: E402
from ingest.droidbot import read_recording, recording_trace  # noqa: E402
from ingest.pipeline import ingest_trace  # noqa: E402
from semantic.pipeline import summarize  # noqa: E402
from semantic.summaries import DeterministicSummarizer  # noqa: E402
from tests.twin_tasks import recorded_tasks  # noqa: E402
from twins.adb_server import TwinServer  # noqa: E402
from twins.app import TwinApp  # noqa: E402
from twins.device import build_fleet  # noqa: E402
from device.driver import DeviceDriver  # noqa: E402

SERIAL = "twin-0001"


def reached(result: dict, task: dict) -> bool:
    return result["status"] == "done" and any(s["reached_screen"] == task["target"] for s in result["steps"])


def ended_there(result: dict, task: dict) -> bool:
    return result["status"] == "done" and bool(result["steps"]) and result["steps"][-1]["reached_screen"] == task["target"]


def run_tasks(server: TwinServer, memory: Service, package: str, tasks: list[dict], max_replans: int) -> dict:
    hits, ended, steps, seconds = 0, 0, 0, 0.0
    for task in tasks:
        server.reset(SERIAL)
        device = adbutils.AdbClient("127.0.0.1", server.port).device(SERIAL)
        runtime = Runtime(DeviceDriver(device, SERIAL), memory, lambda step: True, max_replans=max_replans)
        start = time.perf_counter()
        result = runtime.run(task["task"], package)
        seconds += time.perf_counter() - start
        hits += reached(result, task)
        ended += ended_there(result, task)
        steps += len(result["steps"])
    return {"reached": hits, "ended_there": ended, "tasks": len(tasks), "steps": steps, "seconds": round(seconds, 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apps", help="comma-separated DroidBot folder names (default: all)")
    parser.add_argument("--tasks", type=int, default=8, help="tasks per app")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    folders = [DROIDBOT / a for a in args.apps.split(",")] if args.apps else sorted(DROIDBOT.iterdir())
    rows: dict[str, dict] = {}
    with private_stack() as settings:
        memory = Service.open(settings)
        try:
            memory.store.ensure_schema()
            packages = []
            for folder in folders:
                recording = read_recording(folder)
                version = TwinApp.from_droidbot(folder).version
                trace = recording_trace(recording, app_version=version)
                ingest_trace(memory.store, trace, settings.ingest_chunk_steps)
                packages.append(trace.package)
            summarize(memory.store, memory.vectors, memory.embedder, DeterministicSummarizer(settings.risky_words),
                      packages)
            with TwinServer(build_fleet(folders, 1)) as server:
                for package in packages:
                    tasks = recorded_tasks(memory.store, package, args.tasks)
                    if tasks:
                        rows[package] = {"runtime": run_tasks(server, memory, package, tasks, 4),
                                         "no_replan": run_tasks(server, memory, package, tasks, 0)}
        finally:
            memory.close()
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    print("TWINS ARE SIMULATORS: these figures depend on replayed DroidBot recordings.")
    print(f"{'app':<36} {'reached':>8} {'ended there':>12} {'no re-plan':>11} {'s/task':>7}")
    for package, r in rows.items():
        a, b = r["runtime"], r["no_replan"]
        print(f"{package:<36} {a['reached']:>4}/{a['tasks']:<3} {a['ended_there']:>8}/{a['tasks']:<3} "
              f"{b['reached']:>7}/{b['tasks']:<3} {a['seconds'] / a['tasks']:>7.1f}")
    total = {k: sum(r[k]["reached"] for r in rows.values()) for k in ("runtime", "no_replan")}
    n = sum(r["runtime"]["tasks"] for r in rows.values())
    ended = sum(r["runtime"]["ended_there"] for r in rows.values())
    print(f"all: runtime reached {total['runtime']}/{n} = {total['runtime'] / max(n, 1):.1%} "
          f"(ended there {ended}/{n} = {ended / max(n, 1):.1%}), "
          f"without re-planning {total['no_replan']}/{n} = {total['no_replan'] / max(n, 1):.1%} "
          f"({total['runtime'] / max(total['no_replan'], 1):.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
