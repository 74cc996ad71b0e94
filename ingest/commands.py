"""CLI: `appmem ingest droidbot|autodroid|run ...` (formats in)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from appmem import generations
from appmem.output import emit
from appmem.settings import Settings


def progress_printer(label: str):
    """A progress callback writing `label: done/total` on stderr: one line updated in place on a terminal, a line
    each elsewhere (a log file would run the updates together)."""
    terminal = sys.stderr.isatty()
    start = "\r" if terminal else ""

    def show(done: int, total: int) -> None:
        end = "\n" if done == total or not terminal else ""
        print(f"{start}{label}: {done}/{total} chunks", end=end, file=sys.stderr, flush=True)
    return show


def register(sub: argparse._SubParsersAction) -> None:
    ingest = sub.add_parser("ingest", help="import recorded traces into the graph")
    formats = ingest.add_subparsers(dest="format", required=True)

    db = formats.add_parser("droidbot", help="a DroidBot output folder (utg.js, states/, events/)")
    db.add_argument("folders", nargs="+", type=Path, metavar="DIR")
    db.add_argument("--package", help="app package (default: utg.js app_package)")
    db.add_argument("--app-version", help="app version (default: sha256 prefix of the APK)")
    db.add_argument("--device", help="device id (default: the recorded device serial)")
    db.add_argument("--json", action="store_true")
    db.set_defaults(handler=run_droidbot)

    ad = formats.add_parser("autodroid", help="AutoDroid memory (utg.yaml) and DroidTask gold traces (tasks.json)")
    ad.add_argument("folder", type=Path, metavar="DIR")
    ad.add_argument("--app", required=True, help="app name (calendar, clock, ...) or package")
    ad.add_argument("--app-version")
    ad.add_argument("--json", action="store_true")
    ad.set_defaults(handler=run_autodroid)

    run = formats.add_parser("run", help="an executed agent run (appmem-run/1 trace JSON, `appmem run` writes it)")
    run.add_argument("file", type=Path, metavar="FILE")
    run.add_argument("--json", action="store_true")
    run.set_defaults(handler=run_run)


def run_droidbot(settings: Settings, args: argparse.Namespace) -> int:
    from appmem.graph.clients import open_graph
    from appmem.errors import InputFormatError
    from appmem.ingest.droidbot import read_recording, recording_trace
    from appmem.ingest.pipeline import ingest_trace

    if args.package and len(args.folders) > 1:
        print("appmem: --package applies to one folder only", file=sys.stderr)
        return 2
    store = open_graph(settings)
    reports, problems = [], []
    try:
        store.ensure_schema()
        for folder in args.folders:
            try:  # a malformed recording is named and left out; the other folders are imported
                trace = recording_trace(read_recording(folder), args.package, args.app_version, args.device)
            except InputFormatError as exc:
                print(f"appmem: left out {exc}", file=sys.stderr)
                problems.append(str(exc))
                continue
            report = ingest_trace(store, trace, settings.ingest_chunk_steps, progress_printer(trace.package),
                                  settings.trust_quorum)
            reports.append(report.as_dict())
    finally:
        store.driver.close()
        generations.bump_from(settings, [r["package"] for r in reports])  # servers retire their cached plans
    emit(args, reports, lambda rs: "\n".join(_describe(r) for r in rs))  # what was left out: on stderr
    return 1 if problems else 0


def run_autodroid(settings: Settings, args: argparse.Namespace) -> int:
    from appmem.graph.clients import open_graph
    from appmem.ingest.autodroid import read_autodroid
    from appmem.ingest.pipeline import ingest_tasks, ingest_trace

    imported = read_autodroid(args.folder, args.app, args.app_version)
    for problem in imported.problems:  # malformed records and tasks are left out, the rest is imported
        print(f"appmem: left out {problem}", file=sys.stderr)
    store = open_graph(settings)
    try:
        store.ensure_schema()
        traces = [ingest_trace(store, trace, settings.ingest_chunk_steps, progress_printer(args.app),
                                   settings.trust_quorum).as_dict()
                  for trace in (imported.trace, imported.demo_trace) if trace is not None]
        tasks = ingest_tasks(store, imported.tasks, imported.demo_trace) if imported.demo_trace else 0
    finally:
        store.driver.close()
        generations.bump_from(settings, [imported.trace.package])
    result = {"traces": traces, "tasks": tasks, "problems": [str(p) for p in imported.problems]}
    emit(args, result, lambda r: "\n".join([*(_describe(t) for t in r["traces"]), f"tasks: {r['tasks']}"]))
    return 1 if imported.problems else 0


def run_run(settings: Settings, args: argparse.Namespace) -> int:
    from appmem.graph.clients import open_graph
    from appmem.ingest.run import ingest_run, read_run

    run = read_run(args.file)
    store = open_graph(settings)
    try:
        store.ensure_schema()
        report, _ = ingest_run(store, run, "local", settings.ingest_chunk_steps, settings.trust_quorum)
    finally:
        store.driver.close()
        generations.bump_from(settings, [run.package])
    emit(args, report, lambda r: f"{_describe(r)}; {r['failed_steps']} failed steps; task: {r['task'] or 'none'}"
                                 + _replayed(r["recalled_task"]))
    return 0


def _replayed(outcome: dict | None) -> str:
    """What the run's outcome did to the stored task it replayed (ingest/run.py count_outcome)."""
    if outcome is None:
        return ""
    if not outcome["counted"]:
        return f"; replayed task {outcome['task_id']}: not counted ({outcome['reason']})"
    return (f"; replayed task {outcome['task_id']}: {outcome['successes']} successes, "
            f"{outcome['failures']} failures")


def _describe(report: dict) -> str:
    if report["already_present"]:
        return f"{report['package']}: trace {report['trace_id']} already in the graph (no-op)"
    return (f"{report['package']}: {report['states']} states, {report['elements']} elements, "
            f"{report['transitions']} transitions in {report['seconds']}s")
