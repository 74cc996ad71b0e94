"""Benchmark: CPU milliseconds per new plan on the heaviest shared apps, against another commit in the same run.

The recordings (`--apps`, default the four with the most states: activitylauncher, achie, onelist, accapp)
are ingested and summarised into a private stack. Then a fresh process plans as a service would (its clients
opened by `Service.open`, as a server's: the graph, the per-app vector snapshots, the model, the threads;
nothing of any app loaded before): per app a first plan (which loads its graph and element index), then `--tasks` new tasks, each a task text never asked before
(the app's own simulated element tasks, read from its snapshot before timing: no benchmark text). Each
plan's CPU time of that process is measured (the query's embedding included: the model's threads count).
The same memory is then planned by the same script with another commit's code (`--baseline`, default
main, checked out into a temporary git worktree), so both figures come from the same run and memory; the
table also counts the plans (as agents read them, JSON) that are the baseline's word for word, so a change
meant only to be faster shows that it plans the same. `--profile` prints where this checkout's new plans
spend their time (cProfile, cumulative and own time).

    python -m appmem.bench.newplans [--apps NAME,...] [--tasks 30] [--baseline main] [--profile]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = 4


def heaviest(count: int) -> list[Path]:
    from appmem.bench.common import shared_folders

    return sorted(shared_folders(), key=lambda f: -sum(1 for _ in (f / "states").glob("*.json")))[:count]


def build_memory(settings, folders: list[Path]) -> list[str]:
    """The recordings ingested and summarised (the deterministic summarizer) into the stack: their packages."""
    from appmem.bench.common import ingest_recordings
    from appmem.graph.clients import open_graph
    from appmem.semantic.embedder import Embedder
    from appmem.semantic.pipeline import summarize
    from appmem.semantic.summaries import DeterministicSummarizer
    from appmem.semantic.vectors import VectorStore, open_qdrant

    store = open_graph(settings)
    packages = ingest_recordings(store, folders, settings.ingest_chunk_steps)
    embedder = Embedder(settings.home)
    vectors = VectorStore(open_qdrant(settings), embedder.dim, settings.snapshot_path)
    try:
        summarize(store, vectors, embedder, DeterministicSummarizer(settings.risky_words), packages)
    finally:
        vectors.client.close()
        store.driver.close()
    return packages


def measure(packages: list[str], tasks: int, profile: bool) -> dict:
    """In this process (a service's): first and new plans' CPU seconds per app."""
    import cProfile
    import io
    import pstats

    from appmem.agent.planner import Planner
    from appmem.agent.service import Service
    from appmem.settings import Settings

    settings = Settings.from_env()
    service = Service.open(settings, read_only=True)  # the clients (and the process's threads) of a server's
    store, vectors, embedder = service.store, service.vectors, service.embedder
    embedder.embed(["warm up the model"], cache=False)
    texts = {}
    for package in packages:
        rows = vectors.points("elements", [package])
        found = sorted({p.get("simulated_task") or p["text"] for _, p in rows})
        texts[package] = found[:: max(1, len(found) // (tasks + 1))][:tasks + 1]
    planner = Planner(store, vectors, embedder)
    out = {}
    for package in packages:
        timed = [_plan_cpu(planner, task, package) for task in texts[package]]
        cpu = [seconds for seconds, _ in timed]
        out[package] = {"elements": len(planner.graph([package]).elements), "first_ms": 1000 * cpu[0],
                        "new_ms": sorted(1000 * c for c in cpu[1:]), "plans": [plan for _, plan in timed]}
    profiler = cProfile.Profile()
    if profile:  # the same plans again, in a new planner, apart from the timing (the profiler slows them)
        planner = Planner(store, vectors, embedder)
        for package in packages:
            _plan_cpu(planner, texts[package][0], package, keep=False)
            profiler.enable()
            for task in texts[package][1:]:
                _plan_cpu(planner, task, package, keep=False)
            profiler.disable()
    service.close()
    if profile:
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(25)
        pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(20)
        out["profile"] = text.getvalue()
    return out


def _plan_cpu(planner, task: str, package: str, keep: bool = True) -> tuple[float, str]:
    """The plan's CPU seconds in this process (a plan that cannot be made costs its time too), and the plan as
    agents read it (JSON; the error's text when there is none), to compare with the baseline's."""
    from appmem.agent.planjson import agent_plan
    from appmem.agent.planner import PlanningError

    started = time.process_time()
    try:
        plan = planner.plan(task, [package])
    except PlanningError as exc:
        return time.process_time() - started, f"PlanningError: {exc}"
    seconds = time.process_time() - started
    return seconds, agent_plan(plan).model_dump_json() if keep else ""


def run_tree(tree: Path, settings, packages: list[str], tasks: int, profile: bool) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree), "APPMEM_HOME": str(settings.home),
           "APPMEM_ARCADEDB_BOLT_PORT": str(settings.arcadedb_bolt_port),
           "APPMEM_ARCADEDB_HTTP_PORT": str(settings.arcadedb_http_port), "APPMEM_REDIS_PORT": str(settings.redis_port)}
    command = [sys.executable, "-P", str(Path(__file__).resolve()), "--measure", ",".join(packages),
               "--tasks", str(tasks)] + (["--profile"] if profile else [])
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, timeout=3600)
    if done.returncode:
        raise RuntimeError(f"planning with {tree}: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def cell(row: dict | None) -> str:
    if not row or not row["new_ms"]:
        return "-"
    new = row["new_ms"]
    return (f"{statistics.median(new):.1f} / {new[min(len(new) - 1, int(0.9 * len(new)))]:.1f} / {new[-1]:.1f} "
            f"(first {row['first_ms']:.0f})")


def same_plans(now: dict | None, before: dict | None) -> str:
    """How many of the app's plans (its first and new tasks) are those of the baseline, word for word."""
    if not now or not before or "plans" not in before:
        return "-"
    return f"{sum(a == b for a, b in zip(now['plans'], before['plans']))} / {len(now['plans'])}"


def main() -> None:
    from appmem.bench.common import BenchParser, droidbot_folders

    parser = BenchParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apps", type=droidbot_folders, help="DroidBot folders (default: the 4 heaviest shared)")
    parser.add_argument("--tasks", type=int, default=30, help="new tasks per app")
    parser.add_argument("--baseline", default="main")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure.split(","), args.tasks, args.profile)))
        return
    from appmem.bench.common import commit_tree, private_stack  # not in `--measure` runs: a baseline lacks them
    folders = args.apps or heaviest(HEAVY)
    print(f"cores {os.cpu_count()}, load average {os.getloadavg()[0]:.1f} at start", flush=True)
    with private_stack() as settings:
        packages = build_memory(settings, folders)
        now = run_tree(ROOT, settings, packages, args.tasks, args.profile)
        with commit_tree(ROOT, args.baseline) as tree:
            before = run_tree(tree, settings, packages, args.tasks, False)
    from appmem.bench.common import markdown_table, write_results  # not in `--measure` runs: a baseline lacks them

    table = markdown_table(["app", "elements", "this checkout", args.baseline, f"plans as {args.baseline}'s"],
                           [[p, now[p]["elements"], cell(now[p]), cell(before.get(p)), same_plans(now[p], before.get(p))]
                            for p in packages])
    for row in [*now.values(), *before.values()]:
        if isinstance(row, dict):
            row.pop("plans", None)  # compared above; the results keep the timings
    print(f"\nCPU ms per new plan: median / p90 / max (first plan), this checkout and {args.baseline} in the "
          f"same run, {args.tasks} new tasks per app\n")
    print(table)
    write_results("newplans", table, {"now": {p: now[p] for p in packages},
                                      "baseline": {p: before.get(p) for p in packages}},
                  f"the planner of {args.baseline} (a temporary git worktree) on the same memory",
                  f"CPU ms per new plan: median / p90 / max (first plan), {args.tasks} new tasks per app")
    print(f"\nload average at the end {os.getloadavg()[0]:.1f}")
    if args.profile:
        print("\n" + now["profile"])


if __name__ == "__main__":
    main()
