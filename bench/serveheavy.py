"""Benchmark: POST /v1/plan on the heaviest shared apps, new and repeated tasks mixed, against another commit.

The recordings (`--apps`, default the four with the most states: activitylauncher, achie, onelist, accapp)
are ingested and summarised into a private stack once. Then `appmem serve` runs on that memory with this
checkout's code, and again with another commit's (`--baseline`, default main, checked out into a temporary
git worktree), the plan cache emptied before each; once per `--workers` setting (default "0,1": as
`appmem serve` runs by default, one worker per core, then one worker). Against each server, from 8 threads:
  agents  -- first, on the server just ready (apps preloaded as `appmem serve` does, none planned yet): the
             load the target was set on, `--agent-requests` requests, each one of `--agent-tasks` tasks asked
             of one of the recordings' apps, drawn at random, so that each (app, task) is a new plan when first
             asked (often by several agents together) and then repeated: req/s, p50, p99, judged against the
             target (>= 100 req/s with p99 <= 250 ms at 8 clients); `--agent-rounds` rounds, each on a fresh
             server, this checkout's and the baseline's taking turns: each figure the median of the rounds;
  new     -- `--new` requests, each a task text never asked (planned from scratch): req/s, p50, p99, and
             the server's CPU ms per request, which is the CPU of a new plan served (it does not depend
             on how many cores the machine has or what else runs on them);
  mixed   -- `--requests` requests as agents send them: one in `--new-every` a task never asked, the others
             a task asked before (which the shared plan cache answers); req/s, p50, p99, CPU ms per request.
Task texts are each app's simulated element tasks from its vector snapshot (no benchmark text), dealt in
one seeded order, the same for both servers; no load asks another's texts. The load generator runs on the
same cores as the server. Before the new and mixed loads (on a server of their own), each server answers new
tasks from every client (`warm_up`), so that each of its workers has made its first plans.

    python -m appmem.bench.serveheavy [--apps NAME,...] [--requests 400] [--new 80] [--agent-requests 400]
                                      [--agent-tasks 14] [--agent-rounds 3] [--workers 0,1] [--baseline main]
"""
from __future__ import annotations

import os
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = 4
CLIENTS = 8
TARGET_REQ_S = 100
TARGET_P99_MS = 250


def task_texts(settings, packages: list[str], seed: int) -> list[tuple[str, str]]:
    """(package, text) of every distinct simulated element task of the apps, in a seeded order."""
    from appmem.semantic.embedder import Embedder
    from appmem.semantic.snapshots import SnapshotVectors

    vectors = SnapshotVectors(settings.snapshot_path, Embedder(settings.home).dim)
    out = sorted({(package, p.get("simulated_task") or p["text"]) for package in packages
                  for _, p in vectors.points("elements", [package])})
    random.Random(seed).shuffle(out)
    return out


def workload(texts: list[tuple[str, str]], new: int, requests: int, new_every: int, seed: int
             ) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(the new-task load, the mixed load): the new load's texts are asked before the mixed load, which
    repeats them and asks one text in `new_every` that no load asked yet."""
    if len(texts) < new + requests // new_every:
        raise SystemExit(f"the apps' memory holds {len(texts)} distinct tasks: fewer than --new + "
                         "--requests / --new-every")
    rng = random.Random(seed)
    fresh, asked = texts[new:], list(texts[:new])
    mixed = []
    for i in range(requests):
        mixed.append(fresh.pop(0) if i % new_every == 0 else rng.choice(asked))
        asked.append(mixed[-1])
    return texts[:new], mixed


def agents_load(texts: list[tuple[str, str]], apps: list[str], tasks: int, requests: int, seed: int
                ) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(`requests` requests, each one of the first `tasks` texts asked of one of `apps`, drawn at random; the
    texts it leaves for the other loads)."""
    if len(texts) < tasks:
        raise SystemExit(f"the apps' memory holds {len(texts)} distinct tasks: fewer than --agent-tasks")
    rng = random.Random(seed)
    asked = [(app, text) for app in apps for _, text in texts[:tasks]]
    return [rng.choice(asked) for _ in range(requests)], texts[tasks:]


def send(url: str, key: str, load: list[tuple[str, str]], clients: int) -> tuple[list[float], float, int]:
    """Each (package, text) of `load` as POST /v1/plan, from `clients` threads: latencies, seconds, errors."""
    import httpx

    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    items = iter(load)

    def client() -> None:
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=60) as http:
            for package, text in items:
                t0 = time.perf_counter()
                r = http.post("/v1/plan", json={"task": text, "app": package})
                with lock:
                    latencies.append(time.perf_counter() - t0)
                    errors[0] += r.status_code != 200

    from appmem.bench.serve import run_clients

    return latencies, run_clients(client, clients), errors[0]


def figures(latencies: list[float], seconds: float, errors: int, cpu: float) -> dict:
    from appmem.bench.serve import pct

    return {"requests": len(latencies), "req_s": len(latencies) / seconds, "p50_ms": 1000 * statistics.median(latencies),
            "p99_ms": 1000 * pct(latencies, 99), "cpu_ms": 1000 * cpu / len(latencies), "errors": errors}


def serve_tree(tree: Path, settings, key: str, loads: dict[str, list[tuple[str, str]]], packages: list[str],
               workers: int, warm: bool = True) -> dict:
    """Each load against `appmem serve` run from `tree` (its code) on the memory with `workers` worker processes
    (0: no --workers, as `appmem serve` runs by default), the plan cache emptied first; `warm`: every worker makes
    its first plans before the loads (`warm_up`), else the loads meet the server just ready."""
    from appmem.bench.common import free_port
    from appmem.bench.serve import group_cpu, wait_ready
    from appmem.semantic.embedder import cores
    from appmem.stack import Stack
    from appmem.workers.devices import open_redis

    redis = open_redis(Stack(settings).redis_url())
    for found in redis.scan_iter("appmem:plan:*"):
        redis.delete(found)
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(tree), "APPMEM_HOME": str(settings.home),
           "APPMEM_ARCADEDB_BOLT_PORT": str(settings.arcadedb_bolt_port),
           "APPMEM_ARCADEDB_HTTP_PORT": str(settings.arcadedb_http_port), "APPMEM_REDIS_PORT": str(settings.redis_port)}
    argv = [sys.executable, "-P", "-m", "appmem.cli", "serve", "--port", str(port)]
    server = subprocess.Popen(argv + (["--workers", str(workers)] if workers else []),
                              env=env, cwd=tree, stderr=subprocess.DEVNULL, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(url, server, workers or cores())
        if warm:
            warm_up(url, key, packages)
        out = {}
        for name, load in loads.items():
            cpu = group_cpu(server.pid)
            latencies, seconds, errors = send(url, key, load, CLIENTS)
            out[name] = figures(latencies, seconds, errors, group_cpu(server.pid) - cpu)
        return out
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=60)


def warm_up(url: str, key: str, packages: list[str]) -> None:
    """Tasks that no load asks ("open <package> <n>"), from as many clients as the loads have: each client's
    connection lands on one worker, so that every worker makes its first plans of each app before the loads."""
    send(url, key, [(p, f"open {p} {n}") for n in range(CLIENTS) for p in packages], CLIENTS)


def workers_list(text: str) -> list[int]:
    """Worker counts separated by commas (0: one per core, as `appmem serve` runs by default)."""
    from appmem.bench.common import whole_numbers

    return whole_numbers(text, 0)


def served(workers: int) -> str:
    from appmem.semantic.embedder import cores

    return f"{workers} worker{'s' * (workers > 1)}" if workers else f"default ({cores()} workers, one per core)"


def cell(f: dict, base: dict | None = None) -> str:
    ratio = f" (x{f['req_s'] / base['req_s']:.2f})" if base else ""
    each = " / ".join(f"{r['p99_ms']:.0f}" for r in f.get("rounds", []))
    rounds = f" (rounds: p99 {each} ms)" if each else ""
    return (f"{f['req_s']:.1f} req/s{ratio}, p50 {f['p50_ms']:.0f} / p99 {f['p99_ms']:.0f} ms{rounds}, "
            f"CPU {f['cpu_ms']:.1f} ms/request" + (f", {f['errors']} errors" if f["errors"] else ""))


def median_round(rounds: list[dict]) -> dict:
    """Each figure of the agents' load, the median over its rounds (a fresh server each), with every round's."""
    figures = [r["agents"] for r in rounds]
    return {**{name: statistics.median(f[name] for f in figures) for name in figures[0]}, "rounds": figures}


def verdict(agents: dict, serve: str) -> str:
    """The target judged on the agents' load: >= TARGET_REQ_S with p99 <= TARGET_P99_MS."""
    met = agents["req_s"] >= TARGET_REQ_S and agents["p99_ms"] <= TARGET_P99_MS and not agents["errors"]
    return (f"Target on the agents' load, {serve}: >= {TARGET_REQ_S} req/s with p99 <= {TARGET_P99_MS} ms at "
            f"{CLIENTS} clients: {agents['req_s']:.1f} req/s, p99 {agents['p99_ms']:.0f} ms: "
            f"{'met' if met else 'MISSED'}.")


def main() -> None:
    from appmem.bench.common import (BenchParser, droidbot_folders, markdown_table, private_stack, commit_tree,
                                     write_results)
    from appmem.bench.newplans import build_memory, heaviest
    from appmem.keys import KeyStore
    from appmem.stack import Stack
    from appmem.workers.devices import open_redis

    parser = BenchParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apps", type=droidbot_folders, help="DroidBot folders (default: the 4 heaviest shared)")
    parser.add_argument("--requests", type=int, default=400, help="requests of the mixed load")
    parser.add_argument("--new", type=int, default=80, help="requests of the new-task load")
    parser.add_argument("--new-every", type=int, default=10, help="one request in this many of the mixed load is new")
    parser.add_argument("--agent-requests", type=int, default=400, help="requests of the agents' load")
    parser.add_argument("--agent-rounds", type=int, default=3,
                        help="rounds of the agents' load, each on a fresh server (figures: the medians)")
    parser.add_argument("--agent-tasks", type=int, default=14,
                        help="tasks of the agents' load, each asked of every app (14 of 4 apps: 56 new plans, as "
                             "many as the load this bench's target was set on)")
    parser.add_argument("--workers", type=workers_list, default=[0, 1],
                        help="worker counts to serve with, separated by commas (0: as `appmem serve` runs by default, "
                             "one per core; default 0,1)")
    parser.add_argument("--baseline", default="main")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    if args.agent_rounds < 1:
        parser.error(f"--agent-rounds must be 1 or more, got {args.agent_rounds}")
    folders = args.apps or heaviest(HEAVY)
    print(f"cores {os.cpu_count()}, load average {os.getloadavg()[0]:.1f} at start", flush=True)
    with private_stack() as settings:
        packages = build_memory(settings, folders)
        apps = [f.name for f in folders if f.name in packages]  # the recordings' own apps
        agents, others = agents_load(task_texts(settings, packages, args.seed), apps, args.agent_tasks,
                                     args.agent_requests, args.seed)
        new, mixed = workload(others, args.new, args.requests, args.new_every, args.seed)
        _, key = KeyStore(open_redis(Stack(settings).redis_url())).create("bench", "plan", rate_limit=1_000_000)
        loads = {"new": new, "mixed": mixed}
        now, before = {}, {}
        with commit_tree(ROOT, args.baseline) as tree:
            for workers in args.workers:  # each count's servers one after the other: alike in what else runs
                rounds = {ROOT: [], tree: []}
                for _ in range(args.agent_rounds):  # a fresh server each: the load meets it just ready
                    for side in rounds:
                        rounds[side].append(serve_tree(side, settings, key, {"agents": agents}, packages, workers,
                                                       warm=False))
                now[workers] = {"agents": median_round(rounds[ROOT]),
                                **serve_tree(ROOT, settings, key, loads, packages, workers)}
                before[workers] = {"agents": median_round(rounds[tree]),
                                   **serve_tree(tree, settings, key, loads, packages, workers)}
    rows = [[served(w), name, cell(now[w][name], before[w][name]), cell(before[w][name])]
            for w in args.workers for name in ["agents", *loads]]
    table = markdown_table(["serve", "load", "this checkout", args.baseline], rows)
    table += "\n" + verdict(now[args.workers[0]]["agents"], served(args.workers[0])) + "\n"
    for w in args.workers:
        ratio = before[w]["new"]["cpu_ms"] / now[w]["new"]["cpu_ms"]
        table += (f"\nCPU per new plan served, {served(w)}: {now[w]['new']['cpu_ms']:.1f} ms against "
                  f"{before[w]['new']['cpu_ms']:.1f} ms ({args.baseline}): x{ratio:.2f} less.\n")
    print(f"\n{table}")
    write_results("serveheavy", table, {"now": now, "baseline": before, "packages": packages},
                  f"`appmem serve` of {args.baseline} (a temporary git worktree) on the same memory and loads",
                  f"POST /v1/plan from {CLIENTS} clients on the same machine; agents: first, on the server just "
                  f"ready, {args.agent_requests} requests drawn at random from {args.agent_tasks} tasks asked of "
                  f"each of {len(apps)} apps ({args.agent_tasks * len(apps)} new plans); new: {args.new} tasks never "
                  f"asked; mixed: {args.requests} requests, one in {args.new_every} new, the others asked before. "
                  f"Apps: {', '.join(packages)}.")
    print(f"\nload average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
