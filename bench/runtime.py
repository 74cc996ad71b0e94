"""Benchmark: `appmem run` on app twins, on recorded targets. How often the runtime reaches them, per app.

TWINS ARE SIMULATORS: each replays a DroidBot recording behind the real adb protocol
(twins/), so a tap the recording never took changes nothing. Every figure here depends
on them, and each miss says whether the twin simulator is why (below).

Memory: each shared DroidBot app's recording, imported under the version its twin
reports (as a device's own runs would be), summarised deterministically. Targets
(tests/twin_tasks.py `unseen_targets`): each recorded tap on a uniquely labelled element
becomes `tap 'LABEL' in PACKAGE`, started on an in-app screen that is not the app's first
(one from which the recording reached the tap's screen, picked by a hash of ids). Judges, each
computed from the device's own dump after the run (in the package in front), not from what the
runtime believed:
- `reached` (the headline): the dump is a screen the recorded tap led to (a recorded tap that led to
  several screens at different times has them all; one that went home is reached on the twin's
  launcher, which stands for every recorded home screen);
- `first`: only the task's one recorded target screen, where `reached` takes any screen the tap led to;
- `tapped`: reached, and the run's last step was a tap on the twin view labelled LABEL (its label as
  memory makes it, or a text it shows): a dialog button with many recorded outcomes cannot count by chance;
- `from_state`, the strictest: tapped, and the dump is an outcome the recording reached with a tap
  on that view FROM THE VERY TWIN STATE the run tapped in (in `similar` mode the twin may answer
  from a like state; such an outcome does not count).

Twin replay modes (twins/replay.py), both in the same run: `exact` (DroidBot's state_str;
round-robin over an input's recorded targets) and `similar` (the same widget on a like screen
of the same activity; the outcomes recorded after the most similar previous state first).

Held to the standard of exact plans (runtime/needless.py), per app and in all: the actions a run took that
its first plan and the task did not need (retries, re-plans, detours, BACKs, relaunches), the state changes
among them (a tap on a toggle or choice, by the vocabulary's role of the view acted on, or on a view showing
risky words, the vocabulary's risky words with Settings.risky_words), and apart, the first plan's own state
changes on its way (a last resort the planner marks as a route step) that the run took.

Every run's trace is also checked against the trace contract (ingest/run.py, what the API
validates): `refused` counts traces the importer would refuse (the target is 0).

A miss is put down to the simulator when, during the run, the twin ignored an input it had
no recorded transition for (a real app would have reacted; a tap on a view the recording
never tapped in that state included), or a recorded input led to different screens on
different turns (the twin replays them round-robin). A miss whose run passed through the
target screen and went on (the plan holds steps after the named tap) is counted apart:
`passed_target`. Each miss carries its trail (action, label, outcome per step) to read.

Baseline, same run, same targets and memory: the runtime with no re-planning
(`max_replans=0`), i.e. the plan executed as first answered, with the same grounding.

With `--api` the runtime plans through the HTTP API on a real socket (uvicorn in a thread, a key with the
`plan` scope), as `appmem run --server URL --key K` does; without, through the local service.

    .venv/bin/python -m appmem.bench.runtime [--apps a,b] [--tasks 8] [--api] [--json]
"""
from __future__ import annotations

import contextlib
import json
import sys
import time


from appmem.bench.common import (BenchParser, droidbot_folders, markdown_table, private_stack, shared_folders,
                                  write_results)

import adbutils

from appmem.runtime.needless import needless
from appmem.runtime.runtime import Runtime
from appmem.agent.service import Service
from appmem.ingest.droidbot import read_recording, recording_trace
from appmem.ingest.pipeline import ingest_trace
from appmem.ingest.run import run_trace, validate_run
from appmem.errors import InputFormatError
from appmem.semantic.pipeline import summarize
from appmem.semantic.summaries import DeterministicSummarizer
from tests.conftest import api_on_socket
from tests.twin_tasks import dump_screen, from_state, named, reached, unseen_targets
from appmem.keys import KeyStore
from appmem.stack import Stack
from appmem.contract.client import ApiClient
from appmem.workers.devices import open_redis
from appmem.twins.adb_server import TwinServer
from appmem.twins.app import LAUNCHER_PACKAGE, LAUNCHER_STATE, TwinApp
from appmem.formats.ui import ActionType
from appmem.twins.device import build_fleet
from appmem.twins.modes import MODES
from appmem.device.driver import DeviceDriver

SERIAL = "twin-0001"


class SimulatorWatch:
    """Counts, on one twin device, the inputs its recording has no transition for and the recorded
    inputs with several targets (replayed round-robin): where the twin is why a run went astray.
    Also keeps, for each tap, the twin state it was made in and the views it acted on (the judges)."""

    def __init__(self, device):
        self.unrecorded = self.ambiguous = 0
        self.taps: list[tuple[str, list]] = []  # (twin state id, placed views hit)
        original, hit = device._follow, device._hit

        def follow(*actions):
            targets = set(device.recorded_targets(*actions))
            self.unrecorded += not targets
            self.ambiguous += len(targets) > 1
            return original(*actions)

        def views_hit(x, y, kind, fallback):
            found = hit(x, y, kind, fallback)
            self.unrecorded += not found  # a touch on no view the twin knows to act on: ignored
            if kind is ActionType.TAP:
                self.taps.append((device._state_id, found))
            return found
        device._follow, device._hit = follow, views_hit

    def reset(self) -> None:
        self.unrecorded = self.ambiguous = 0
        self.taps = []


class FirstPlan:
    """The memory a run plans with, keeping the first plan it answers: what the run's needless actions are
    counted against (runtime/needless.py)."""

    def __init__(self, memory):
        self.memory, self.plan_ = memory, None

    def plan(self, *args, **kwargs):
        answered = self.memory.plan(*args, **kwargs)
        self.plan_ = self.plan_ or answered
        return answered

    def __getattr__(self, name):
        return getattr(self.memory, name)


def run_tasks(server: TwinServer, fleet, memory, app, tasks: list[dict], max_replans: int,
              relaunches: int = Runtime.relaunches, risky_words: tuple[str, ...] = ()) -> dict:
    """`memory`: the local service, or an API client (`--api`)."""
    hits, first, tapped, strict, steps, seconds, refused, misses = 0, 0, 0, 0, 0, 0.0, [], []
    extra, changes, route_changes, unneeded = 0, 0, 0, []
    device = fleet[SERIAL]
    watch = SimulatorWatch(device)
    for task in tasks:
        server.reset(SERIAL)
        device.goto(app.package, task["start"])
        watch.reset()
        driver = DeviceDriver(adbutils.AdbClient("127.0.0.1", server.port).device(SERIAL), SERIAL)
        planned = FirstPlan(memory)
        runtime = Runtime(driver, planned, lambda step: True, max_replans=max_replans, relaunches=relaunches)
        start = time.perf_counter()
        result = runtime.run(task["task"], None)
        seconds += time.perf_counter() - start
        beyond = needless(planned.plan_, runtime.steps, risky_words)
        extra, changes = extra + len(beyond.actions), changes + len(beyond.changes)
        route_changes += len(beyond.route_changes)
        if beyond.changes or beyond.route_changes:
            unneeded.append({"label": task["label"], "needless": len(beyond.actions), "changes": beyond.changes,
                             "route_changes": beyond.route_changes})
        package, activity, xml = driver.dump()
        ended = dump_screen(xml, activity, package, app.version) if package != LAUNCHER_PACKAGE else LAUNCHER_STATE
        hit = reached(task, package, activity, xml, app.version)
        hits += hit
        first += ended == task["target"]
        last = result["run"]["steps"][-1] if result["run"]["steps"] else None
        named_tap = hit and bool(last) and last["action"] == "tap" and bool(watch.taps) and any(
            named(pv.view, task["label"]) for pv in watch.taps[-1][1])
        tapped += named_tap
        strict += named_tap and from_state(app, watch.taps, task["label"], ended, task["home"])
        steps += len(result["steps"])
        try:
            run_trace(validate_run(result["run"], "run"))
        except InputFormatError as exc:
            refused.append(f"{task['label']}: {exc}")
        if not hit:
            passed = any(dump_screen(s["after_xml"], s["after_activity"], app.package, app.version)
                         in task["targets"] for s in result["run"]["steps"])
            misses.append({"label": task["label"], "status": result["status"], "reason": result["reason"][:160],
                           "simulator": bool(watch.unrecorded or watch.ambiguous), "passed_target": passed,
                           "trail": [f"{s['action']} {s['label'] or ''} → {s['outcome']}".replace("  ", " ")
                                     for s in result["steps"]]})
    return {"reached": hits, "first": first, "tapped": tapped, "from_state": strict, "tasks": len(tasks), "steps": steps, "seconds": round(seconds, 1),
            "refused": refused, "misses": misses,
            "needless": extra, "needless_changes": changes, "route_changes": route_changes, "changed": unneeded,
            "simulator_misses": sum(m["simulator"] for m in misses),
            "passed_target": sum(m["passed_target"] for m in misses)}


def main() -> int:
    parser = BenchParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apps", type=droidbot_folders, help="comma-separated DroidBot folder names (default: all)")
    parser.add_argument("--tasks", type=int, default=8, help="tasks per app")
    parser.add_argument("--modes", default=",".join(MODES), help=f"twin replay modes (default {','.join(MODES)})")
    parser.add_argument("--api", action="store_true",
                        help="plan through the HTTP API on a real socket (a key with the plan scope), as `appmem run --server`")
    parser.add_argument("--relaunches", type=int, default=Runtime.relaunches,
                        help=f"restarts of a stuck run's app (default {Runtime.relaunches})")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    folders = args.apps or shared_folders()
    modes = args.modes.split(",")
    rows: dict[str, dict] = {}  # package → replay mode → {"runtime": ..., "no_replan": ...}
    skipped: list[str] = []  # apps whose recording has no target reachable from a non-first in-app screen
    with private_stack() as settings, contextlib.ExitStack() as scope:
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
            backend = memory
            if args.api:
                url = scope.enter_context(api_on_socket(settings, memory))
                key = KeyStore(open_redis(Stack(settings).redis_url())).create("bench-runtime", "plan")[1]
                backend = scope.enter_context(ApiClient(url, key))
            for mode in modes:
                fleet = build_fleet(folders, 1, replay=mode)
                with TwinServer(fleet) as server:
                    for package in packages:
                        app = fleet[SERIAL].apps[package]
                        tasks = unseen_targets(memory.store, app, args.tasks)
                        if not tasks:
                            skipped += [package] if package not in skipped else []
                            continue
                        rows.setdefault(package, {})[mode] = {
                            "runtime": run_tasks(server, fleet, backend, app, tasks, Runtime.max_replans,
                                                 args.relaunches, settings.risky_words),
                            "no_replan": run_tasks(server, fleet, backend, app, tasks, 0,
                                                   risky_words=settings.risky_words)}
        finally:
            scope.close()
            memory.close()
    write_runtime_results(rows, modes, skipped, args.api)
    if args.json:
        print(json.dumps({"apps": rows, "without_targets": skipped, "api": args.api}, indent=1))
        return 0
    print("TWINS ARE SIMULATORS: these figures depend on replayed DroidBot recordings.")
    print(f"plans through: {'the HTTP API (a plan key)' if args.api else 'the local service'}")
    for mode in modes:
        report(mode, {p: r[mode] for p, r in rows.items()})
    for package in skipped:
        print(f"{package:<36} no recorded tap reachable from a non-first in-app screen: no target")
    return 0


JUDGES = ("reached", "first", "tapped", "from_state")
# runtime/needless.py: actions beyond the run's first plan, the state changes among them, the plan's own
NEEDLESS = {"needless": "needless actions", "needless_changes": "of them state changes",
            "route_changes": "state changes on the plan's route"}


def write_runtime_results(rows: dict[str, dict], modes: list[str], skipped: list[str], api: bool) -> None:
    """The docs' table: per replay mode and app, targets reached by the runtime and, in the same run, without
    re-planning, each judge as runtime / no re-planning."""
    table_rows = []
    for mode in modes:
        per_app = {p: r[mode] for p, r in rows.items() if mode in r}
        for package, r in [*per_app.items(), ("all", None)]:
            if r is None:
                r = {k: {j: sum(x[k][j] for x in per_app.values()) for j in (*JUDGES, *NEEDLESS, "tasks")}
                     for k in ("runtime", "no_replan")}
            a, b = r["runtime"], r["no_replan"]
            name = f"**{package}**" if package == "all" else package
            table_rows.append([mode, name, a["tasks"], *(f"{a[j]} / {b[j]}" for j in (*JUDGES, *NEEDLESS))])
    table = markdown_table(["replay mode", "app", "targets", *(f"{j} (runtime / no re-planning)" for j in JUDGES),
                            *(f"{n} (runtime / no re-planning)" for n in NEEDLESS.values())], table_rows)
    if skipped:
        table += f"\nApps with no target (no recorded tap reachable from a non-first in-app screen): {', '.join(skipped)}.\n"
    write_results("runtime", table, {"apps": rows, "without_targets": skipped, "api": api},
                  "the same runs without re-planning (the first plan followed to its end)",
                  "TWINS ARE SIMULATORS: these figures depend on replayed DroidBot recordings and on the twin "
                  f"replay mode. Plans through {'the HTTP API' if api else 'the in-process service'}. Targets: "
                  "`tap 'LABEL' in PACKAGE` for uniquely labelled recorded taps, started on an in-app screen that "
                  "is not the app's first. Needless actions: what a run took beyond the steps of the first plan it "
                  "got (retries, re-plans, detours, BACKs, relaunches); of them state changes: taps on a toggle or "
                  "choice, or on a view showing risky words; state changes on the plan's route: the first plan's "
                  "own (a last resort) that the run took.")


def report(mode: str, rows: dict[str, dict]) -> None:
    """One replay mode's table: per app, each judge for the runtime and (after /) no re-planning, then each
    runtime miss with its trail."""
    print(f"\n== twin replay mode: {mode}  (each judge: runtime / no re-planning)")
    print(f"{'app':<36} {'tasks':>5} " + " ".join(f"{j:>11}" for j in JUDGES) + f" {'refused':>8} {'sim. misses':>12} {'s/task':>7}"
          + " " + " ".join(f"{j:>16}" for j in NEEDLESS))
    for package, r in rows.items():
        a, b = r["runtime"], r["no_replan"]
        print(f"{package:<36} {a['tasks']:>5} " + " ".join(f"{a[j]:>5} / {b[j]:<3}" for j in JUDGES)
              + f" {len(a['refused']) + len(b['refused']):>8} {a['simulator_misses']:>6}/{len(a['misses']):<5} "
              f"{a['seconds'] / a['tasks']:>7.1f} " + " ".join(f"{a[j]:>10} / {b[j]:<3}" for j in NEEDLESS))
        for c in a["changed"]:
            print(f"    state changes beyond the plan {c['label']!r}: {c['changes']}; on its route: {c['route_changes']}")
        for m in a["misses"]:
            print(f"    miss {m['label']!r}: {m['status']} {'(twin simulator) ' if m['simulator'] else ''}"
                  f"{'(passed the target, plan went on) ' if m['passed_target'] else ''}{m['reason']}")
            print(f"        {' | '.join(m['trail'])}")
        for why in a["refused"] + b["refused"]:
            print(f"    REFUSED trace {why}")
    n = sum(r["runtime"]["tasks"] for r in rows.values())
    total = {(j, k): sum(r[k][j] for r in rows.values()) for j in JUDGES for k in ("runtime", "no_replan")}
    refused = sum(len(r[k]["refused"]) for r in rows.values() for k in ("runtime", "no_replan"))
    sim = sum(r["runtime"]["simulator_misses"] for r in rows.values())
    passed = sum(r["runtime"]["passed_target"] for r in rows.values())
    reached_ = total["reached", "runtime"]
    print(f"all ({mode}): runtime reached {reached_}/{n} = {reached_ / max(n, 1):.1%}, without re-planning "
          f"{total['reached', 'no_replan']}/{n} = {total['reached', 'no_replan'] / max(n, 1):.1%} "
          f"({reached_ / max(total['reached', 'no_replan'], 1):.2f}x); "
          + "; ".join(f"{j}: {total[j, 'runtime']}/{n} (no re-planning {total[j, 'no_replan']}/{n})" for j in JUDGES[1:])
          + f"; traces refused: {refused}; misses from the twin simulator: {sim}/{n - reached_}; "
          f"misses that passed the target and went on: {passed}; "
          + "; ".join(f"{label}: {sum(r['runtime'][j] for r in rows.values())} (no re-planning "
                      f"{sum(r['no_replan'][j] for r in rows.values())})" for j, label in NEEDLESS.items()))


if __name__ == "__main__":
    sys.exit(main())
