"""Benchmark: where building memory of heavy apps spends its time, in CPU seconds, against another commit.

Copies of the heaviest shared recordings (`--apps`, default the four with the most states, taken in turn
`--copies` times) are renamed to new packages (tests/shared_data.copy_recording, in a temporary folder) and
built as a new user would: ingest, then `summarize` (the deterministic summarizer, one process), on a private
stack whose vector cache starts empty. They are built in two stages: first one copy of each recording (what a
new app costs: every text is new to the model, the database's JIT compiler is cold), then the further copies
(what the crowd's next copies of those apps cost: the same screens under other packages). Per stage and phase
it measures the wall seconds, the CPU seconds of the builder process (the embedding model's threads included)
and of the stack's servers (ArcadeDB, redis: what the graph writes cost the database). CPU seconds do not
depend on what else runs on the machine's cores, wall seconds do; apps per CPU minute is the rate one free
core would build at. The same build runs with another commit's code (`--baseline`, default main, a temporary
git worktree), in the same run, on its own stack.

    python -m appmem.bench.buildcpu [--apps NAME,...] [--copies 8] [--baseline main]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from appmem.bench.common import servers_cpu

ROOT = Path(__file__).resolve().parents[1]
HEAVY = 4
PHASES = ("contexts", "summaries", "embeddings", "vector_writes", "graph_writes", "publish")


def clocks() -> tuple[float, float, float]:
    return time.perf_counter(), time.process_time(), servers_cpu()


def spent(since: tuple[float, float, float]) -> dict:
    now = clocks()
    return {"wall_s": round(now[0] - since[0], 2), "builder_cpu_s": round(now[1] - since[1], 2),
            "servers_cpu_s": round(now[2] - since[2], 2)}


def measure(stages: list[list[Path]]) -> dict:
    """In this process, with this tree's code: each stage's copies built on one private stack, timed per phase."""
    from appmem.bench.common import private_stack
    from appmem.graph.clients import open_graph
    from appmem.ingest.droidbot import read_recording, recording_trace
    from appmem.ingest.pipeline import ingest_trace
    from appmem.semantic.embedder import Embedder
    from appmem.semantic.pipeline import summarize
    from appmem.semantic.summaries import DeterministicSummarizer
    from appmem.semantic.vectors import VectorStore, open_qdrant

    out = []
    with private_stack() as settings:
        store = open_graph(settings)
        store.ensure_schema()
        embedder = Embedder(settings.home)
        vectors = VectorStore(open_qdrant(settings), embedder.dim, settings.snapshot_path)
        try:
            for folders in stages:
                started = clocks()
                packages = []
                for folder in folders:
                    trace = recording_trace(read_recording(folder))
                    ingest_trace(store, trace, settings.ingest_chunk_steps)
                    packages.append(trace.package)
                ingest = spent(started)
                started = clocks()
                report = summarize(store, vectors, embedder, DeterministicSummarizer(settings.risky_words), packages)
                out.append({"apps": len(folders), "ingest": ingest, "summarize": spent(started),
                            "phases": report.as_dict()["phase_seconds"], "model_texts": report.model_texts,
                            "cached_texts": report.cached_texts})
        finally:
            vectors.client.close()
            store.driver.close()
    return {"stages": out}


def run_tree(tree: Path, stages: list[list[Path]]) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    command = [sys.executable, "-P", str(Path(__file__).resolve()), "--measure",
               json.dumps([[str(f) for f in folders] for folders in stages])]
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, timeout=3600)
    if done.returncode:
        raise RuntimeError(f"building with {tree}: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def rates(r: dict) -> dict:
    wall = r["ingest"]["wall_s"] + r["summarize"]["wall_s"]
    cpu = sum(r[p]["builder_cpu_s"] + r[p]["servers_cpu_s"] for p in ("ingest", "summarize"))
    return {"apps_per_min": 60 * r["apps"] / wall, "apps_per_cpu_min": 60 * r["apps"] / cpu, "cpu_s": cpu}


STAGES = ("first copies", "further copies")


def stage_rows(name: str, now: dict, before: dict) -> list[list[object]]:
    def cpu(r: dict, part: str) -> str:
        return f"{r[part]['builder_cpu_s']:.1f} + {r[part]['servers_cpu_s']:.1f} ({r[part]['wall_s']:.0f} wall)"

    rows = [[f"{name}: apps", now["apps"], before["apps"]],
            [f"{name}: ingest, builder + servers CPU s (wall s)", cpu(now, "ingest"), cpu(before, "ingest")],
            [f"{name}: summarize, builder + servers CPU s (wall s)", cpu(now, "summarize"), cpu(before, "summarize")],
            [f"{name}: texts the model ran on / found in the cache", f"{now['model_texts']} / {now['cached_texts']}",
             f"{before['model_texts']} / {before.get('cached_texts', '-')}"]]
    rows += [[f"{name}: summarize phase {p.replace('_', ' ')}, wall s", now["phases"].get(p, 0.0),
              before["phases"].get(p, 0.0)] for p in PHASES]
    a, b = rates(now), rates(before)
    return rows + [[f"{name}: CPU s in all", f"{a['cpu_s']:.1f} (x{b['cpu_s'] / a['cpu_s']:.2f} less)", f"{b['cpu_s']:.1f}"],
                   [f"{name}: **apps per CPU minute**", f"**{a['apps_per_cpu_min']:.1f}**", f"{b['apps_per_cpu_min']:.1f}"],
                   [f"{name}: apps/min (wall, shared cores)", f"{a['apps_per_min']:.1f}", f"{b['apps_per_min']:.1f}"]]


def table(now: dict, before: dict, baseline: str) -> str:
    from appmem.bench.common import markdown_table

    rows = [row for name, a, b in zip(STAGES, now["stages"], before["stages"]) for row in stage_rows(name, a, b)]
    return markdown_table(["", "this checkout", baseline], rows)


def main() -> None:
    from appmem.bench.common import BenchParser, droidbot_folders

    parser = BenchParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apps", type=droidbot_folders, help="DroidBot folders (default: the 4 heaviest shared)")
    parser.add_argument("--copies", type=int, default=8, help="renamed copies built (the apps taken in turn)")
    parser.add_argument("--baseline", default="main")
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure([[Path(p) for p in stage] for stage in json.loads(args.measure)])))
        return
    from appmem.bench.common import commit_tree, write_results  # not in `--measure` runs: a baseline lacks them
    from appmem.bench.newplans import heaviest
    from tests.shared_data import copy_recording

    sources = args.apps or heaviest(HEAVY)
    print(f"cores {os.cpu_count()}, load average {os.getloadavg()[0]:.1f} at start", flush=True)
    with tempfile.TemporaryDirectory(prefix="appmem-buildcpu-") as tmp:
        folders = []
        for i in range(args.copies):
            source = sources[i % len(sources)]
            folders.append(copy_recording(source, Path(tmp) / f"copy{i}", f"buildcpu{i:03d}.{source.name}"))
        stages = [folders[:len(sources)], folders[len(sources):]]
        stages = [stage for stage in stages if stage]
        now = run_tree(ROOT, stages)
        with commit_tree(ROOT, args.baseline) as tree:
            before = run_tree(tree, stages)
    out = table(now, before, args.baseline)
    print(f"\n{out}")
    write_results("buildcpu", out, {"now": now, "baseline": before},
                  f"the build of {args.baseline} (a temporary git worktree) on the same copies, its own stack",
                  f"{args.copies} renamed copies of {', '.join(s.name for s in sources)} (taken in turn); first "
                  "one copy of each, then the further copies, each stage ingested, then summarised (deterministic, "
                  "1 process), on one stack whose vector cache starts empty. CPU seconds: the builder process (the "
                  "model's threads included) + the stack's servers (ArcadeDB, redis; the first stage also pays "
                  "their JIT compiler's warm-up).")
    print(f"\nload average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
