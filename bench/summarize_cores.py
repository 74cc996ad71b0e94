"""Benchmark: `summarize` in 1, 2, ... processes (semantic/apppool.py) on the same apps, from an empty memory.

The recordings (`--apps`, default every shared DroidBot recording) are ingested once into a private stack.
Then each process count in `--processes` summarises and embeds every app, each run into an empty vector
folder and an empty embedding cache of its own (so every run embeds every text), the counts taking turns
for `--rounds` rounds (load from other work on the machine falls on each alike). It prints per run the
seconds, apps/min, texts/s and the seconds per phase, and the speed-up of each count against one process
(median seconds of the rounds); the load average says how busy the machine was. With `--warm-cache`
every run starts from a copy of an embedding cache that an unmeasured run filled (a crowd's new apps
repeat most texts of those before them): the runs then measure all but the model.

    python -m appmem.bench.summarize_cores [--apps NAME,...] [--processes 1,2] [--rounds 2] [--warm-cache]
"""
from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from appmem.bench.common import (BenchParser, droidbot_folders, ingest_recordings, markdown_table, positive_ints,
                                 private_stack, shared_folders, write_results)
from appmem.graph.clients import open_graph
from appmem.semantic.embedder import Embedder, cores
from appmem.semantic.pipeline import summarize
from appmem.semantic.summaries import DeterministicSummarizer
from appmem.semantic.vectors import VectorStore, open_qdrant
from appmem.settings import Settings


def one_run(store, settings: Settings, home: Path, packages: list[str], processes: int) -> dict:
    embedder = Embedder(home)
    vectors = VectorStore(open_qdrant(Settings(home=home)), embedder.dim, home / "vectors")
    try:
        report = summarize(store, vectors, embedder, DeterministicSummarizer(settings.risky_words), packages,
                           processes=processes)
    finally:
        vectors.client.close()
        embedder.cache.close()
    return {"processes": processes, "seconds": report.seconds, "screens": report.screens_done,
            "texts": report.embedded_texts, "model_texts": report.model_texts,
            "apps_per_min": 60 * len(packages) / report.seconds, "phases": report.as_dict()["phase_seconds"],
            "load": os.getloadavg()[0]}


def main() -> None:
    parser = BenchParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apps", type=droidbot_folders, help="DroidBot folders (names of shared ones, or paths)")
    parser.add_argument("--processes", type=positive_ints, default=[1, 2])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--warm-cache", action="store_true", help="every run starts with every text's vector cached")
    args = parser.parse_args()
    folders = args.apps or shared_folders()
    print(f"cores {cores()}, load average {os.getloadavg()[0]:.1f} at start; {len(folders)} recordings", flush=True)
    runs: dict[int, list[dict]] = {p: [] for p in args.processes}
    with private_stack() as settings, tempfile.TemporaryDirectory(prefix="appmem-cores-") as tmp:
        store = open_graph(settings)
        packages = ingest_recordings(store, folders, settings.ingest_chunk_steps)
        try:
            warm = Path(tmp) / "warm"
            if args.warm_cache:
                one_run(store, settings, warm, packages, 1)
            for round_ in range(args.rounds):
                for processes in args.processes:
                    home = Path(tmp) / f"{round_}-{processes}"
                    if args.warm_cache:
                        home.mkdir()
                        shutil.copy(warm / "embeddings.sqlite", home / "embeddings.sqlite")
                    run = one_run(store, settings, home, packages, processes)
                    runs[processes].append(run)
                    print(f"round {round_ + 1}, {processes} process(es): {run['seconds']:.1f} s, "
                          f"{run['apps_per_min']:.1f} apps/min, {run['texts'] / run['seconds']:.0f} texts/s "
                          f"({run['model_texts']} through the model), phases {run['phases']}, "
                          f"load {run['load']:.1f}", flush=True)
        finally:
            store.driver.close()
    base = statistics.median(r["seconds"] for r in runs[args.processes[0]])
    rows = []
    for processes, done in runs.items():
        seconds = statistics.median(r["seconds"] for r in done)
        texts = statistics.median(r["texts"] for r in done)
        rows.append([processes, f"{seconds:.1f}", f"{60 * len(packages) / seconds:.1f}", f"{texts / seconds:.0f}",
                     f"{base / seconds:.2f}×", ", ".join(format(r["load"], ".1f") for r in done)])
    table = markdown_table(["processes", "seconds", "apps/min", "texts/s", "speed-up", "load average (runs)"], rows)
    what = (f"{len(packages)} apps ({len(folders)} recordings), median of {args.rounds} rounds, embedding cache "
            f"{'warm' if args.warm_cache else 'empty'} at each start")
    print(f"\n{what}, against {args.processes[0]} process(es)\n")
    print(table)
    write_results("summarize_cores", table, {"apps": packages, "runs": runs},
                  f"appmem summarize with {args.processes[0]} process(es) on the same memory", what)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
