"""Crawl benchmark: coverage curves against DroidBot's own runs, and parallel scaling. Prints figures.

Coverage: every shared app is explored by one in-process job (real adb protocol
to a twin, real graph and Redis, no Celery) whose steps are recorded in order;
the curve is recorded states reached (dump-visible content hash, home screens
aside) against actions spent. DroidBot's curve comes from the order of its
`events/*.json` (each event's start/stop state, first appearance). Printed per
app: DroidBot's final count and actions, the policy's count at 25/50/100% of
its budget, DroidBot's count at the same actions, the actions the policy
needed to reach DroidBot's final count (if it did), and the twin's ceiling
(recorded states reachable through the twin's transition table).

Scaling: the whole shared set crawled by the real fleet (Celery worker
processes, one per device) with 1, 2, 4 devices; wall time and speedups.

Each run has its own private embedded stack (bench/common.private_stack: a fresh home, free
ports, stopped afterwards), so a run never builds on what an earlier one left in the graph.

    .venv/bin/python -m appmem.bench.crawl [--apps DIR ...] [--budget 500] [--scale-budget 150]
"""
from __future__ import annotations

import argparse
import json
import threading
import time
import uuid
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path


from appmem.bench.common import (BenchParser, droidbot_folder, markdown_table, on_each, private_stack, shared_folders,
                                  write_results)
from appmem.graph.clients import open_graph
from appmem.settings import Settings
from appmem.stack import Stack
from appmem.graph.model import Step, Trace
from appmem.graph.times import now_iso
from appmem.graph.vocabulary import is_launcher
from appmem.ingest.droidbot import read_recording
from appmem.workers.celery_app import create_app
from appmem.workers.crawl import WorkerProcesses, enqueue, plan_jobs, recorded_states, summarize, wait_jobs
from appmem.workers.devices import DevicePool, DeviceRecord, Heartbeat, acquire, key, open_redis
from appmem.device.driver import DeviceDriver
from appmem.workers.explorer import Explorer
from appmem.workers.jobspec import JobSpec
from appmem.workers.knowledge import FleetKnowledge
from appmem.workers.sinks import GraphChunkSink
from appmem.workers.jobs import WorkerClients
from appmem.workers.policies import make_policy
from appmem.twins.adb_server import TwinServer
from appmem.twins.app import LAUNCHER_STATE, TwinApp
from appmem.twins.device import build_fleet
from appmem.formats.uixml import shown_state_id



def droidbot_curve(folder: Path) -> list[int]:
    """States DroidBot had seen after each of its events (home screens aside)."""
    rec = read_recording(folder)
    ids = {sid: shown_state_id(s) for sid, s in rec.states.items() if not is_launcher(s.package)}
    seen: set[str] = set()
    curve = []
    for path in sorted((folder / "events").glob("event_*.json")):
        event = json.loads(path.read_text())
        for name in ("start_state", "stop_state"):
            if event.get(name) in ids:
                seen.add(ids[event[name]])
        curve.append(len(seen))
    return curve


def twin_ceiling(folder: Path) -> int:
    """Recorded states reachable from the launch outcomes through the twin's transition table."""
    app = TwinApp.from_droidbot(folder)
    adjacent: dict[str, set[str]] = {}
    for (source, _), targets in app.transitions.items():
        adjacent.setdefault(source, set()).update(targets)
    launches = set(app.launches) - {LAUNCHER_STATE}
    seen, queue = set(launches), deque(sorted(launches))
    while queue:
        for target in adjacent.get(queue.popleft(), ()):
            if target != LAUNCHER_STATE and target not in seen:
                seen.add(target)
                queue.append(target)
    return len({shown_state_id(app.states[s]) for s in seen if not is_launcher(app.states[s].package)})


@dataclass
class RecordingSink(GraphChunkSink):
    """The real graph sink, plus the steps in the order they were taken (for the curve)."""

    steps: list[Step] = field(default_factory=list)
    packages: dict[str, str] = field(default_factory=dict)

    def write(self, trace: Trace, index: int, steps: list[Step]) -> None:
        super().write(trace, index, steps)
        self.steps += steps
        self.packages.update({sid: s.package for sid, s in trace.states.items()})


def policy_curve(clients: WorkerClients, device: DeviceRecord, package: str, policy: str, budget: int) -> list[int]:
    """Run one job in-process on `device`, returning states seen after each action."""
    spec = JobSpec(job_id=f"bench-{uuid.uuid4().hex[:8]}", run_id=f"bench-{uuid.uuid4().hex[:8]}",
                   package=package, policy=policy, max_actions=budget, max_seconds=3600)
    lease = acquire(clients.r, key("job", spec.job_id, "lease"), 600, "bench")
    driver = DeviceDriver(clients.adb(device.adb_host, device.adb_port, 10.0).device(device.serial), device.id)
    sink = RecordingSink(clients.store, clients.r, lease)
    knowledge = FleetKnowledge(clients.store, clients.r, spec.run_id, now_iso())
    beat = Heartbeat([lease], 60, lambda: True, lambda: None)
    Explorer(driver, spec, make_policy(policy, 0, knowledge), sink, clients.risky_words, beat.check).run()
    lease.release()
    # The curve counts states by the dump-visible hash: a crawled state id is that hash already.
    seen: set[str] = set()
    curve = []
    for step in sink.steps:
        for sid in (step.source_state, step.target_state):
            if not is_launcher(sink.packages.get(sid, "")):
                seen.add(sid)
        curve.append(len(seen))
    return curve


def at(curve: list[int], actions: int) -> int:
    return curve[min(actions, len(curve)) - 1] if curve else 0


def first_reaching(curve: list[int], count: int) -> int | None:
    return next((i + 1 for i, c in enumerate(curve) if c >= count), None)


def coverage(settings: Settings, folders: list[Path], policy: str, budget: int, parallel: int) -> list[dict]:
    store = open_graph(settings)
    r = open_redis(Stack(settings).redis_url())
    fleet = build_fleet(folders, parallel)
    server = TwinServer(fleet)
    port = server.start()
    clients = WorkerClients(store, r, settings.risky_words)
    rows: list[dict] = []
    todo = deque(folders)
    lock = threading.Lock()

    def work(serial: str) -> None:
        device = DeviceRecord(serial, "127.0.0.1", port)
        while True:
            with lock:
                if not todo:
                    return
                folder = todo.popleft()
            package, recorded = recorded_states(folder)
            db = droidbot_curve(folder)
            mine = policy_curve(clients, device, package, policy, budget)
            # Recorded states only: a crawled state outside the recording would not count.
            rows.append({"app": package, "recorded": len(recorded), "twin_ceiling": twin_ceiling(folder),
                         "droidbot_final": db[-1], "droidbot_actions": len(db),
                         "droidbot_at_budget": at(db, budget), "policy_at_25": at(mine, budget // 4),
                         "policy_at_50": at(mine, budget // 2), "policy_final": at(mine, budget),
                         "droidbot_at_half_budget": at(db, budget // 2),
                         "actions_to_droidbot_final": first_reaching(mine, db[-1])})

    on_each(work, fleet)
    server.stop()
    r.close()
    store.driver.close()
    return sorted(rows, key=lambda row: row["app"])


def scaling(settings: Settings, folders: list[Path], budget: int, device_counts: list[int], policy: str) -> list[dict]:
    store = open_graph(settings)
    r = open_redis(Stack(settings).redis_url())
    celery = create_app(settings)
    recorded = dict(recorded_states(f) for f in folders)
    out = []
    for n in device_counts:
        fleet = build_fleet(folders, n)
        server = TwinServer(fleet)
        port = server.start()
        queue = f"bench-{n}-{uuid.uuid4().hex[:6]}"
        for serial in fleet:
            DevicePool(r).register(DeviceRecord(serial, "127.0.0.1", port, queue))
        run = f"bench-scale-{n}-{uuid.uuid4().hex[:6]}"
        with WorkerProcesses(n, [queue], settings.run_dir / "bench", loglevel="WARNING"):
            time.sleep(3.0)  # workers up before the clock starts
            started = time.monotonic()
            enqueue(celery, r, plan_jobs(run, list(recorded), policy, budget, budget, queue=queue))
            records = wait_jobs(celery, r, run, 3600)
            wall = time.monotonic() - started
        for serial in fleet:
            DevicePool(r).unregister(DeviceRecord(serial, "127.0.0.1", port, queue).id)
        server.stop()
        summary = summarize(store, records, recorded, wall)
        out.append({"devices": n, "wall_s": round(wall, 1), "actions": summary["totals"]["actions"],
                    "actions_per_s": summary["totals"]["actions_per_s"],
                    "mean_coverage": summary["totals"]["mean_coverage"],
                    "failed_jobs": summary["totals"]["failed_jobs"]})
    base = out[0]["wall_s"] if out else 1.0
    for row in out:
        row["speedup"] = round(base / row["wall_s"], 2)
    r.close()
    store.driver.close()
    return out


def main() -> None:
    parser = BenchParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apps", nargs="+", type=droidbot_folder,
                        help="DroidBot output folders, or shared ones' names (default: every shared app)")
    parser.add_argument("--policy", default="frontier")
    parser.add_argument("--budget", type=int, default=500, help="actions per app for the coverage curves")
    parser.add_argument("--parallel", type=int, default=4, help="apps explored at once for the curves")
    parser.add_argument("--scale-budget", type=int, default=150, help="actions per app for the scaling runs")
    parser.add_argument("--devices", nargs="+", type=int, default=[1, 2, 4])
    parser.add_argument("--skip-coverage", action="store_true")
    parser.add_argument("--skip-scaling", action="store_true")
    args = parser.parse_args()
    args.apps = args.apps or shared_folders()
    with private_stack() as settings:
        run(settings, args)


def run(settings: Settings, args: argparse.Namespace) -> None:
    store = open_graph(settings)
    store.ensure_schema()
    store.driver.close()
    table, data = "", {}
    if not args.skip_coverage:
        rows = coverage(settings, args.apps, args.policy, args.budget, args.parallel)
        cols = ("recorded", "twin_ceiling", "droidbot_final", "droidbot_actions", "droidbot_at_half_budget",
                "droidbot_at_budget", "policy_at_25", "policy_at_50", "policy_final", "actions_to_droidbot_final")
        print(f"coverage ({args.policy}, {args.budget} actions per app; states = recorded states reached)")
        print(f"{'app':36} " + " ".join(f"{c[:14]:>14}" for c in cols))
        for row in rows:
            print(f"{row['app'][:36]:36} " + " ".join(f"{str(row[c]):>14}" for c in cols))
        reached = [r for r in rows if r["actions_to_droidbot_final"] is not None
                   and r["actions_to_droidbot_final"] <= 0.5 * r["droidbot_actions"]]
        ratio = [r["policy_final"] / r["droidbot_at_budget"] for r in rows if r["droidbot_at_budget"]]
        print(f"reached DroidBot's final count within 50% of its actions: {len(reached)}/{len(rows)} apps")
        print(f"states at {args.budget} actions, policy / DroidBot at the same actions: "
              f"median {sorted(ratio)[len(ratio) // 2]:.2f}" if ratio else "")
        ceiling = [r["policy_final"] / r["twin_ceiling"] for r in rows if r["twin_ceiling"]]
        print(f"share of the twin's reachable states: mean {sum(ceiling) / len(ceiling):.2f}" if ceiling else "")
        data["coverage"] = rows
        table += markdown_table(["app", *cols], [[r["app"], *(r[c] for c in cols)] for r in rows])
        table += (f"\n{args.policy} reached DroidBot's final state count within half of DroidBot's actions on "
                  f"{len(reached)}/{len(rows)} apps" + (f"; states at {args.budget} actions against DroidBot's at the "
                  f"same actions: median {sorted(ratio)[len(ratio) // 2]:.2f}" if ratio else "") + ".\n\n")
    if not args.skip_scaling:
        print(f"scaling ({args.policy}, {args.scale_budget} actions per app, {len(args.apps)} apps)")
        data["scaling"] = scaling(settings, args.apps, args.scale_budget, args.devices, args.policy)
        table += markdown_table(["devices", "wall s", "actions/s", "speed-up", "mean coverage", "failed jobs"],
                                [[r["devices"], f"{r['wall_s']:.1f}", f"{r['actions_per_s']:.1f}", f"{r['speedup']:.2f}",
                                  r["mean_coverage"], r["failed_jobs"]] for r in data["scaling"]])
        for row in data["scaling"]:
            print(f"  {row['devices']} devices: {row['wall_s']:7.1f}s  {row['actions_per_s']:6.1f} actions/s  "
                  f"speedup {row['speedup']:.2f}  coverage {row['mean_coverage']}  failed {row['failed_jobs']}")
    if data:
        write_results("crawl", table, data, "DroidBot's own recorded run of each app (coverage); 1 device (scaling)",
                      "TWINS ARE SIMULATORS: every coverage figure depends on the twins and on the `exact` replay "
                      "rule; a twin can never reach more than its recording holds.")


if __name__ == "__main__":
    main()
