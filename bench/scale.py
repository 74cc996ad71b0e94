"""Benchmark: a memory of 6 → 120 apps (or more), built from copies of the real shared DroidBot recordings.

Every app is a copy of one of the shared recordings (../shared/datasets/droidbot) under a new package name:
the package is rewritten in every file of the copy, in a temporary folder (nothing is copied into the
repository). The recordings are taken heaviest and lightest in turn (by their number of states: the
four largest, activitylauncher, achie, onelist and accapp, with the smallest), so that a memory of six
apps already holds three of the heaviest. The apps are built in steps up to each size (ingest, then
`summarize` of what is new, as `appmem summarize` does), then a fresh *service process* plans for a few
apps of the memory:

- the process's own first plan, on another app (code paths, the ranker, the store's query plans), kept apart;
- first plan: an app's first plan in that process (its graph, its element index, the plan), median over the
  newest copies of the first APPS recordings (the same recordings at every size), wall and CPU seconds;
- warm p50 / p99: WARM further new plans of the same apps (their own simulated tasks as task texts: no benchmark
  text), wall and CPU ms (the process's CPU: the graph store's server is not counted);
- RSS of the service process after those plans; its start (opening the vector store) is printed apart;
- vector store size on disk (Qdrant folder + snapshots);
- build rate: apps/min and texts/s of the step that reached this size, built CHUNK apps at a time (copies are
  made in /dev/shm before and deleted after each chunk, outside the timing); the first step's apps are the only
  distinct recordings, later copies share most texts with them, so their build is mostly vector-cache hits;
  and its seconds per phase: ingest, then summarize's (`--processes` of them, semantic/apppool.py) contexts,
  summaries, embeddings, vector writes, graph writes and snapshot publishing (summaries and embeddings are
  summed over the processes, so with several the phases add up to more than the time they took);
- the builder's RSS (this process: it ingests and summarises, as `appmem summarize` does) after the step, and
  the app folders its local Qdrant opened so far (semantic/appfolders.py: each app in its own folder);
- the load average: other work on the machine makes every timing noisy.

Flatness: each size's first plan against the same run's first size (target ≤ 1.3× from 6 to 120 apps).
Results: bench/results/scale.md and .json.

Baseline, same run: the read path before per-app vectors: one shared collection per kind in Qdrant local
mode, an app's element index loaded by a package-filtered scroll over every point (a service opening the
folder loads every point). Its folder gets the same points. It runs up to --scan-up-to apps only: its
probe holds every point of the memory in one process (≈ 2.2 GB at 120 apps, so ≈ 18 GB at 1,000), which
is the cost this change removes; above that size the table says "not run". The build's own same-run
baseline (main's CLI on the same copies) is bench/buildcli.py's.

    .venv/bin/python -m appmem.bench.scale [--sizes 6,30,120,1000] [--scan-up-to 120]
                                           [--processes N]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


from appmem.bench.common import DROIDBOT, markdown_table, private_stack, servers_cpu, write_results

from appmem.graph.clients import open_graph
from appmem.settings import Settings
from appmem.ingest.droidbot import read_recording, recording_trace
from appmem.ingest.pipeline import ingest_trace
from appmem.semantic.apppool import processes_for
from appmem.semantic.embedder import Embedder
from appmem.semantic.pipeline import summarize
from appmem.semantic.summaries import DeterministicSummarizer
from appmem.semantic.vectors import VectorStore, open_qdrant
import appmem.semantic.vectors

APPS = 5  # apps whose first plan is measured in each service process
HEAVY = 4  # the largest recordings, taken in turn with the smallest
CHUNK = 25  # apps copied and built at a time
SCAN_UP_TO = 120  # the scan baseline's probe holds every point: ≈ 2.2 GB at 120 apps, ≈ 18 GB at 1,000
WARM = 20  # warm plans per app



def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def rss_mb() -> int:
    return round(int(open("/proc/self/status").read().split("VmRSS:")[1].split()[0]) / 1024)


def peak_rss_mb() -> int:
    import resource

    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0


def by_weight(sources: list[Path]) -> list[Path]:
    """The recordings heaviest and lightest in turn (by their number of states): the heavy ones come first."""
    states = {s: sum(1 for _ in (s / "states").glob("*.json")) for s in sources}
    ranked = sorted(sources, key=lambda s: (-states[s], s.name))
    heavy, light = ranked[:HEAVY], ranked[HEAVY:][::-1]
    order = [s for pair in zip(heavy, light) for s in pair]
    return order + [s for s in ranked if s not in order]


def build(store, vectors, embedder, settings, folders: list[Path], processes: int = 1) -> dict:
    """Ingest these recordings, then summarise their apps (`appmem summarize --app` for each) in `processes`:
    seconds, apps/min, texts/s, seconds per phase. (Screens of other packages a recording shows, the
    launcher's, are not summarised.)"""
    t0, cpu0, servers0 = time.perf_counter(), time.process_time(), servers_cpu()
    packages = []
    for folder in folders:
        trace = recording_trace(read_recording(folder))
        ingest_trace(store, trace, settings.ingest_chunk_steps)
        packages.append(trace.package)
    ingest_s = time.perf_counter() - t0
    report = summarize(store, vectors, embedder, DeterministicSummarizer(settings.risky_words), packages,
                       processes=processes)
    total = time.perf_counter() - t0
    phases = {"ingest": ingest_s, **report.as_dict()["phase_seconds"]}
    return {"apps": len(folders), "seconds": total, "builder_cpu_s": time.process_time() - cpu0,
            "servers_cpu_s": servers_cpu() - servers0, "ingest_s": round(ingest_s, 1), "summarize_s": round(report.seconds, 1),
            "phases": phases,
            "apps_per_min": round(60 * len(folders) / total, 1), "texts": report.embedded_texts,
            "model_texts": report.model_texts, "cached_texts": report.cached_texts,
            "texts_per_s": round(report.embedded_texts / report.seconds, 1) if report.seconds else 0.0}


def merged(parts: list[dict]) -> dict:
    """One build step made of several `build` calls: totals, and the rates over the whole step."""
    total = {k: sum(p[k] for p in parts) for k in ("apps", "ingest_s", "summarize_s", "texts", "model_texts",
                                                   "cached_texts", "seconds", "builder_cpu_s", "servers_cpu_s")}
    phases = {k: round(sum(p["phases"][k] for p in parts), 1) for k in parts[0]["phases"]} if parts else {}
    return {**{k: round(v, 1) for k, v in total.items()}, "phases": phases,
            "apps_per_min": round(60 * total["apps"] / total["seconds"], 1) if total["seconds"] else 0.0,
            "cpu_s_per_app": round((total["builder_cpu_s"] + total["servers_cpu_s"]) / total["apps"], 2),
            "texts_per_s": round(total["texts"] / total["summarize_s"], 1) if total["summarize_s"] else 0.0}


def probe(mode: str, packages: list[str], spare: str | None) -> dict:
    """In this (fresh) process: plan as a service would, from the snapshots (`snapshots`) or from a
    shared-collection Qdrant folder scanned by package (`scan`, the previous read path)."""

    from appmem.agent.planner import Planner, PlanningError
    from appmem.semantic.snapshots import SnapshotVectors

    settings = Settings.from_env()
    store = open_graph(settings)
    embedder = Embedder(settings.home, cache=False)
    embedder.embed(["warm up the model"], cache=False)
    t0 = time.perf_counter()
    if mode == "snapshots":
        vectors = SnapshotVectors(settings.snapshot_path, embedder.dim)
    else:  # one local folder, every point loaded when it opens, as before
        from qdrant_client import QdrantClient

        legacy = Settings.from_env({**os.environ, "APPMEM_HOME": os.environ["SCALE_LEGACY"]})
        vectors = VectorStore(QdrantClient(path=str(legacy.qdrant_path)), embedder.dim, per_app=False)
    open_s = time.perf_counter() - t0
    tasks_of = {}
    for package in packages:  # read before timing
        texts = warm_up_tasks(vectors, package)
        tasks_of[package] = texts[:: max(1, len(texts) // (WARM + 1))][:WARM + 1]
    planner = Planner(store, vectors, embedder)  # a new planner: nothing of any app is loaded
    failed, steps = 0, 0

    def timed(task: str, package: str) -> tuple[float, float]:
        nonlocal failed, steps
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            steps += len(planner.plan(task, [package]).steps)
        except PlanningError:
            failed += 1  # counted: a plan that could not be made is no latency figure
        return time.perf_counter() - wall, time.process_time() - cpu

    # The process's own first plan (code paths, the ranker, the store's query plans) on an app not measured
    # below, kept apart: the apps' first plans then hold only what each app costs.
    start = timed(warm_up_tasks(vectors, spare)[0], spare) if spare else (0.0, 0.0)
    first, warm = [], []
    for package in packages:
        for i, task in enumerate(tasks_of[package]):
            (first if i == 0 else warm).append(timed(task, package))
    rss = int(open("/proc/self/status").read().split("VmRSS:")[1].split()[0]) * 1024
    store.driver.close()
    if mode == "scan":
        vectors.client.close()
    warm_wall, warm_cpu = sorted(w for w, _ in warm), sorted(c for _, c in warm)

    def pct(values: list[float], q: float) -> float:
        return round(1000 * values[min(len(values) - 1, int(len(values) * q))], 1)
    return {"plans": len(first) + len(warm), "failed": failed, "steps": steps, "open_s": round(open_s, 3),
            "process_first_s": round(start[0], 3), "process_first_cpu_s": round(start[1], 3),
            "first_s": round(statistics.median(w for w, _ in first), 3),
            "first_cpu_s": round(statistics.median(c for _, c in first), 3),
            "first_all": [round(w, 3) for w, _ in first], "first_cpu_all": [round(c, 3) for _, c in first],
            "warm_p50_ms": pct(warm_wall, 0.5), "warm_p99_ms": pct(warm_wall, 0.99),
            "warm_cpu_p50_ms": pct(warm_cpu, 0.5), "warm_cpu_p99_ms": pct(warm_cpu, 0.99),
            "rss_mb": round(rss / 2**20), "peak_rss_mb": round(int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0]) / 1024)}


def warm_up_tasks(vectors, package: str) -> list[str]:
    """An app's own simulated tasks (its element texts where none), as task texts: no benchmark text."""
    rows = vectors.points("elements", [package])
    return sorted({p.get("simulated_task") or p["text"] for _, p in rows})


def run_probe(settings: Settings, legacy: Path, mode: str, packages: list[str], spare: str | None) -> dict:
    env = {**os.environ, "APPMEM_HOME": str(settings.home), "SCALE_LEGACY": str(legacy),
           "APPMEM_ARCADEDB_BOLT_PORT": str(settings.arcadedb_bolt_port),
           "APPMEM_ARCADEDB_HTTP_PORT": str(settings.arcadedb_http_port),
           "APPMEM_REDIS_PORT": str(settings.redis_port)}
    done = subprocess.run([sys.executable, "-m", "appmem.bench.scale", "--probe", mode, "--packages", ",".join(packages),
                           *(["--spare", spare] if spare else [])],
                          env=env, capture_output=True, text=True, timeout=3600)
    if done.returncode:
        raise RuntimeError(f"probe {mode}: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def probed(packages: list[str], sources: int) -> tuple[list[str], str | None]:
    """The apps whose plans are measured: the newest copy of each of the first APPS recordings (the same
    recordings at every size, so the sizes' first plans compare), and the newest copy of the next one, whose
    plan warms the service process up (None below APPS + 1 apps)."""
    newest = {i % sources: package for i, package in enumerate(packages)}
    return [newest[i] for i in range(min(APPS, len(newest)))], newest.get(APPS)


def copy_to_legacy(vectors: VectorStore, legacy: VectorStore, packages: list[str]) -> None:
    """The same points in the previous layout (one shared collection per kind)."""
    from appmem.semantic.points import VectorPoint

    for kind in ("elements", "screens", "tasks"):  # the baseline's writes need not wait for the disk either
        appmem.semantic.vectors._fast_local_writes(legacy.client._root(), legacy.ensure(kind))
    for package in packages:  # app by app: each app's folder is opened once
        for kind in ("elements", "screens", "tasks"):
            rows = vectors.points(kind, [package])
            legacy.upsert(kind, [VectorPoint(p["object_id"], list(v), package, extra={
                k: x for k, x in p.items() if k not in ("object_id", "package")}) for v, p in rows])


def main() -> None:
    from tests.shared_data import copy_recording  # not at the top: the probe processes measure the service's RSS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="6,30,120")
    parser.add_argument("--scan-up-to", type=int, default=SCAN_UP_TO,
                        help="largest size at which the scan baseline runs (its probe holds every point in memory)")
    parser.add_argument("--processes", type=int, default=1,
                        help="processes that summarise and embed apps (semantic/apppool.py; 0: one per core)")
    parser.add_argument("--probe", help=argparse.SUPPRESS)
    parser.add_argument("--packages", help=argparse.SUPPRESS)
    parser.add_argument("--spare", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.probe:
        print(json.dumps(probe(args.probe, args.packages.split(","), args.spare)))
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    sources = by_weight(sorted(p for p in DROIDBOT.iterdir() if p.is_dir()))
    processes = processes_for(args.processes)
    originals = {source: read_recording(source).package for source in sources}
    rows = []
    shm = Path("/dev/shm") if Path("/dev/shm").is_dir() else None
    with tempfile.TemporaryDirectory(prefix="appmem-scale-") as tmp_name, private_stack() as settings, \
            tempfile.TemporaryDirectory(prefix="appmem-scale-copies-", dir=shm) as copies_name:
        tmp, copies = Path(tmp_name), Path(copies_name)
        store = open_graph(settings)
        store.ensure_schema()
        embedder = Embedder(settings.home)
        print(f"cores: {os.cpu_count()} (affinity {len(os.sched_getaffinity(0))}); ONNX threads {embedder.threads}; "
              f"load average {os.getloadavg()[0]:.1f} at start; summarize in {processes} process(es); recordings "
              f"in turn: {', '.join(p.name for p in sources)}", flush=True)
        vectors = VectorStore(open_qdrant(settings), embedder.dim, settings.snapshot_path)
        legacy_home = tmp / "legacy"
        legacy_settings = Settings(home=legacy_home)
        packages: list[str] = []
        scanned: list[str] = []  # apps copied into the scan baseline's folder
        try:
            for size in sizes:
                log(f"building {size - len(packages)} apps up to {size}")
                parts = []
                while len(packages) < size:  # a few apps at a time: their copies live in memory (/dev/shm)
                    new = []
                    for i in range(len(packages), min(size, len(packages) + CHUNK)):
                        source = sources[i % len(sources)]
                        package = f"scale{i:04d}.{source.name}"
                        new.append(copy_recording(source, copies / package, package, originals[source]))
                        packages.append(package)
                    parts.append(build(store, vectors, embedder, settings, new, processes))
                    log(f"{len(packages)} apps: {parts[-1]}, builder RSS {rss_mb()} MB, "
                        f"load {os.getloadavg()[0]:.1f}")
                    for folder in new:
                        shutil.rmtree(folder)
                step = merged(parts)
                log(f"built: {step}")
                scan = size <= args.scan_up_to
                if scan:
                    legacy = VectorStore(open_qdrant(legacy_settings), embedder.dim, per_app=False)
                    copy_to_legacy(vectors, legacy, packages[len(scanned):size])
                    legacy.close()
                    scanned = packages[:size]
                chosen, spare = probed(packages, len(sources))
                log("probing the snapshot service")
                now = run_probe(settings, legacy_home, "snapshots", chosen, spare)
                before = None
                if scan:
                    log("probing the previous scan path")
                    before = run_probe(settings, legacy_home, "scan", chosen, spare)
                disk_now = folder_bytes(settings.qdrant_path) + folder_bytes(settings.snapshot_path)
                row = {"apps": size, "build": step, "now": now, "before": before,
                       "disk_now_mb": round(disk_now / 2**20, 1),
                       "disk_before_mb": round(folder_bytes(legacy_settings.qdrant_path) / 2**20, 1) if scan else None,
                       "builder_rss_mb": rss_mb(), "builder_peak_rss_mb": peak_rss_mb(),
                       "app_folders_opened": vectors.client.opened, "load": [round(x, 1) for x in os.getloadavg()]}
                rows.append(row)
                print(json.dumps(row), flush=True)
        finally:
            vectors.client.close()
            store.driver.close()
    report(rows, args)


PHASES = ("ingest", "contexts", "summaries", "embeddings", "vector_writes", "graph_writes", "publish")


def report(rows: list[dict], args: argparse.Namespace) -> None:
    """The plans table (flatness against the same run's first size; the scan baseline where it ran), the build
    table (each step's rate and seconds per phase), printed and written as bench/results/scale.*."""
    first = rows[0]["now"] if rows else {}
    plans = []
    for r in rows:
        n, b = r["now"], r["before"] or {}

        def scan(key):
            return f" ({b[key]})" if b else ""
        plans.append([r["apps"], f"{n['first_s']} (×{n['first_s'] / first['first_s']:.2f}){scan('first_s')}",
                      f"{n['first_cpu_s']} (×{n['first_cpu_s'] / first['first_cpu_s']:.2f})",
                      f"{n['warm_p50_ms']} / {n['warm_p99_ms']}" + (f" ({b['warm_p50_ms']} / {b['warm_p99_ms']})"
                                                                    if b else ""),
                      f"{n['warm_cpu_p50_ms']} / {n['warm_cpu_p99_ms']}",
                      f"{n['process_first_s']} ({n['process_first_cpu_s']})", f"{n['rss_mb']}{scan('rss_mb')}",
                      f"{r['disk_now_mb']}" + (f" ({r['disk_before_mb']})" if b else ""),
                      " / ".join(map(str, r["load"]))])
    scanned = "" if not args.scan_up_to else f" (scan baseline up to {args.scan_up_to} apps)"
    table = markdown_table(["apps", f"first plan s (× first size){scanned}", "first plan CPU s (× first size)",
                            "warm p50 / p99 ms" + (" (scan)" if args.scan_up_to else ""), "warm CPU p50 / p99 ms",
                            "process's first plan s (CPU s)", "service RSS MB", "vectors on disk MB",
                            "load 1/5/15 min"], plans)
    steps = [[r["apps"], r["build"]["apps"], f"**{r['build']['apps_per_min']}**",
              f"{r['build']['builder_cpu_s']} + {r['build']['servers_cpu_s']} ({r['build']['cpu_s_per_app']})",
              r["build"]["texts_per_s"],
              f"{r['build']['model_texts']} / {r['build']['cached_texts']}",
              *(r["build"]["phases"].get(p, 0.0) for p in PHASES), f"{r['builder_rss_mb']} (peak {r['builder_peak_rss_mb']})"]
             for r in rows]
    table += "\nBuild steps up to each size (in this process, as `appmem ingest` then `appmem summarize` do; " \
             "seconds per phase):\n\n" + markdown_table(
                 ["apps", "new apps", "apps/min (wall)", "CPU s: builder + servers (per app)", "texts/s",
                  "model / cached texts",
                  *(p.replace("_", " ") + " s" for p in PHASES), "builder RSS MB"], steps)
    print("\n" + table)
    baseline = (f"the previous read path (one shared Qdrant collection per kind, scanned by package) up to "
                f"{args.scan_up_to} apps" if args.scan_up_to else "flatness against the same run's first size "
                "(the scan read path not run: --scan-up-to 0)")
    write_results("scale", table, {"rows": rows}, baseline,
                  "Apps are copies of the shared DroidBot recordings under new package names, heaviest and "
                  "lightest in turn; the first 11 are the distinct recordings (every text new to the model), later "
                  "ones copies (their texts come from the vector cache). Plans: a fresh service process; its own "
                  "first plan (on another app) is kept apart; first plan = an app's graph + element index + plan, "
                  f"median of the newest copies of the first {APPS} recordings; warm = {WARM} further new tasks (the "
                  "app's own simulated tasks) on each. A plan's CPU is the service process's (the graph store's "
                  "server not counted); a build's is the builder process's (the model's threads included) + the "
                  "stack's servers' (ArcadeDB, redis; with --processes above 1 the summarize pool's too). The machine's 2 cores are shared with other work: wall figures move with the load.")


if __name__ == "__main__":
    main()
