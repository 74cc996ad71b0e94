"""Benchmark: what a tenant's private layer costs its keys' plans, against an untenanted key's, same run.

Memory: the shared DroidBot recordings of --apps, imported (a crawl's data) and summarised.
Layers: --tenants tenants (default 20), each with --keys keys, hold layers over the SAME apps: for every
task below, each key reports (as a contribution, through the ingest path the worker runs) what
tests/twin_tasks.py `forged_runs` makes of the task's plan: a one-tap shortcut no recording holds, a
failed run of the real route, and the route's screens sent again as its own (screens, elements and
edges only that tenant backs). The app twins render the dumps: TWINS ARE SIMULATORS. After each
contribution its tenant's layer of the app is embedded, as the ingest worker does (workers/layers.py);
that time is reported apart (it is the worker's, not a plan's).
Tasks: built from the recorded graph (tests/twin_tasks.py `recorded_tasks`), up to --tasks per app.
The layers' runs carry other task texts than the measured tasks ("TENANT run N"), so both sides' plans
are the planner's: what is compared is planning over a layered memory. With --recalled they carry the
measured tasks' texts: a tenant's view then recalls its own demonstrations (agent/recall.py), which the
untenanted side has none of, and the two sides answer by different means.

Measured, alternating an untenanted key's service and a tenant's view (agent/service.py `viewing`), each
fresh (nothing loaded) and over the same stores:
  - first plan: the first plan of an app (its graph and element index loaded; a tenant's view also reads
    its own points, as the ingest worker kept them: semantic/layercache.py), from the second round on
    (all rounds when --rounds 1);
  - first plan, first ever: the first round's, when no view of the tenant was loaded yet (its layer's
    points are the ingest worker's);
  - warm plans: every other task of the app, planned with the app loaded (each task asked once: no plan
    is answered from the plan cache);
  - first plan, public graph loaded: as a server that preloaded the app (agent/service.py `preload`), one
    fresh service loads the app's public graph and index (not timed), then plans the first task for an
    untenanted key and for the tenant's view of it (which reads only its layer over the public rows the
    service holds: graph/graphrows.py). The untenanted side's first plan is then a warm one.
Printed: median milliseconds and the tenant/untenanted ratio per app and overall (the ratio of the medians).
Target: both ratios <= 1.2. Beside it, the first plans' paired ratio: the median over the pairs of one
tenant's first plan and the untenanted first plan measured just before it, which share the load of the
moment (the cores are shared: first plans of tens of milliseconds move with it); the target is judged on
the ratio of the medians. Also each tenant's layer size (cypher/tenant_layer.cypher), proportional to what it reported.
The first three start both sides cold; the fourth is what a server that preloads the public graphs
sees (docs/tenants.md says what it costs).

    .venv/bin/python -m appmem.bench.tenants [--apps a,b] [--tasks 6] [--tenants 20] [--keys 1] [--rounds 5] [--json]
"""
from __future__ import annotations

import json
import statistics
import sys
import time

from appmem.agent.service import Service
from appmem.bench.common import BenchParser, droidbot_folders, markdown_table, private_stack, write_results
from appmem.contract.run import RunTrace
from appmem.ingest.contributions import count_votes
from appmem.ingest.droidbot import read_recording, recording_trace
from appmem.ingest.pipeline import ingest_trace
from appmem.ingest.run import ingest_run
from appmem.ingest.tenants import layer
from appmem.semantic.pipeline import summarize
from appmem.semantic.summaries import DeterministicSummarizer
from appmem.twins.app import TwinApp
from appmem.twins.device import build_fleet
from tests.twin_tasks import forged_runs, recorded_tasks

DEFAULT_APPS = "anupam.acrylic,com.lolo.io.onelist"
TARGET = 1.2


def contribute(memory: Service, run: dict, tenant: str, contributor: str, quorum: int) -> float:
    """One contribution as the ingest worker writes it (ingest/contributions.py), without the queue: stored,
    then the tenant's layer of its app embedded (workers/layers.py). The embedding's ms."""
    store = memory.store
    _, imported = ingest_run(store, RunTrace.model_validate(run), contributor, 200, quorum)
    if imported.task is not None:
        store.write("task_crowd", task_id=imported.task.id, quorum=quorum)
    count_votes(store, imported.trace, contributor, quorum)
    return timed(lambda: memory.embed_layer(tenant, [imported.trace.package]))


def timed(call) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000


def phases(service: Service, package: str) -> dict[str, float]:
    """Where a first plan's loading goes, on a service that loaded nothing yet: the app's graph (and what
    look-alikes lend), then its element index (a tenant's view: with its own elements embedded)."""
    planner = service.planner()
    return {"graph": timed(lambda: planner.graph([package])), "index": timed(lambda: planner.index([package]))}


def measure(service: Service, package: str, tasks: list[str]) -> tuple[float, list[float]]:
    """(first plan ms, warm plans ms) of `tasks` in `package` on a service that loaded nothing yet."""
    first = timed(lambda: service.plan(tasks[0], package))
    return first, [timed(lambda: service.plan(t, package)) for t in tasks[1:]]


def main() -> int:
    parser = BenchParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apps", type=droidbot_folders, default=DEFAULT_APPS, help="comma-separated DroidBot folders")
    parser.add_argument("--tasks", type=int, default=6, help="tasks per app (the first is the first plan)")
    parser.add_argument("--tenants", type=int, default=20)
    parser.add_argument("--keys", type=int, default=1, help="keys per tenant (each reports the layer's runs)")
    parser.add_argument("--rounds", type=int, default=5, help="measurements per tenant and app")
    parser.add_argument("--recalled", action="store_true",
                        help="the layers' runs carry the measured tasks' texts (a tenant's plans are recalled)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with private_stack() as settings:
        memory = Service.open(settings)
        try:
            report = run_bench(memory, settings, args)
        finally:
            memory.close()
    write_results("tenants_recalled" if args.recalled else "tenants", results_table(report), report, "an untenanted key's service on the same stores, "
                  "alternated with the tenant's view",
                  f"{args.tenants} tenants of {args.keys} key(s), median of {args.rounds} rounds; both sides cold; "
                  + ("the layers' runs carry the measured tasks' texts (a tenant's plans are recalled from its own "
                     "demonstrations); " if args.recalled else "the layers' runs carry other task texts (both sides "
                                                                 "plan by the planner); ") +
                  "twins are simulators (they render the layers' dumps)")
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for package, row in report["apps"].items():
            print(f"{package}: first plan {row['first_ms']['untenanted']:.1f} ms untenanted, "
                  f"{row['first_ms']['tenant']:.1f} ms tenant ({row['first_ratio']:.2f}x); warm plans "
                  f"{row['warm_ms']['untenanted']:.1f} / {row['warm_ms']['tenant']:.1f} ms ({row['warm_ratio']:.2f}x)")
            print(f"{package}: first plan, public graph loaded {row['served_ms']['untenanted']:.1f} / "
                  f"{row['served_ms']['tenant']:.1f} ms ({row['served_ratio']:.2f}x)")
            if row.get("first_ever_ratio"):
                print(f"{package}: first plan, first ever {row['first_ever_ms']['untenanted']:.1f} / "
                      f"{row['first_ever_ms']['tenant']:.1f} ms ({row['first_ever_ratio']:.2f}x)")
        print(f"overall: first plan {report['first_ratio']:.2f}x (paired {report['first_ratio_paired']:.2f}x), warm plans {report['warm_ratio']:.2f}x "
              f"(target <= {TARGET}): {'met' if report['met'] else 'MISSED'}")
        print(f"tenant layers (per tenant): {report['layer']}")
        print(f"the worker's embedding of a layer per contribution: {report['ingest_embed_ms']} ms")
        for package, row in report["apps"].items():
            print(f"{package}: loading, untenanted / tenant: {row['load_ms']}; elements read {row['elements']}")
    return 0 if report["met"] else 1


def judged(ratio: float) -> str:
    """A ratio with its verdict against the target."""
    return f"{ratio:.2f}x (target <= {TARGET}: {'met' if ratio <= TARGET else 'MISSED'})"


def results_table(report: dict) -> str:
    """Per app and overall: first and warm plans' median ms, untenanted and tenant, their ratio, the target."""
    def ever(r: dict) -> list[str]:
        if not r.get("first_ever_ratio"):
            return ["", "", ""]
        return [f"{r['first_ever_ms']['untenanted']:.1f}", f"{r['first_ever_ms']['tenant']:.1f}",
                f"{r['first_ever_ratio']:.2f}x"]

    rows = [[p, f"{r['first_ms']['untenanted']:.1f}", f"{r['first_ms']['tenant']:.1f}", f"{r['first_ratio']:.2f}x",
             f"{r['first_ratio_paired']:.2f}x",
             *ever(r), f"{r['warm_ms']['untenanted']:.1f}", f"{r['warm_ms']['tenant']:.1f}", f"{r['warm_ratio']:.2f}x",
             f"{r['served_ms']['untenanted']:.1f}", f"{r['served_ms']['tenant']:.1f}", f"{r['served_ratio']:.2f}x"]
            for p, r in report["apps"].items()]
    rows.append(["overall (median)", "", "", judged(report["first_ratio"]), f"{report['first_ratio_paired']:.2f}x",
                 "", "", "", "", "", judged(report["warm_ratio"]), "", "", f"{report['served_ratio']:.2f}x"])
    table = markdown_table(["app", "first plan ms, untenanted", "tenant", "ratio", "paired ratio", "first ever, untenanted",
                            "tenant", "ratio", "warm plan ms, untenanted", "tenant", "ratio",
                            "first plan, public graph loaded: untenanted", "tenant", "ratio"], rows)
    loads = [[p, f"{r['elements']['untenanted']} / {r['elements']['tenant']:.0f}",
              f"{r['load_ms']['untenanted']['graph']:.1f} / {r['load_ms']['tenant']['graph']:.1f}",
              f"{r['load_ms']['untenanted']['index']:.1f} / {r['load_ms']['tenant']['index']:.1f}"]
             for p, r in report["apps"].items()]
    embed = report.get("ingest_embed_ms")
    worker = (f"\nThe ingest worker's embedding of the tenant's layer of the app, per contribution (the worker's time, "
              f"not a plan's): median {embed['median']:.1f} ms, p90 {embed['p90']:.1f} ms over {embed['contributions']} "
              "contributions.\n") if embed else ""
    return table + worker + "\nWhere a first plan's loading goes (median ms, untenanted / tenant):\n\n" + markdown_table(
        ["app", "elements read", "graph (and look-alikes)", "element index (tenant: with its own embedded)"], loads)


def run_bench(memory: Service, settings, args) -> dict:
    store = memory.store
    store.ensure_schema()
    packages = []
    for folder in args.apps:
        version = TwinApp.from_droidbot(folder).version
        trace = recording_trace(read_recording(folder), app_version=version)
        ingest_trace(store, trace, settings.ingest_chunk_steps)
        packages.append(trace.package)
    summarize(store, memory.vectors, memory.embedder, DeterministicSummarizer(settings.risky_words), packages)
    device = build_fleet(args.apps, 1)["twin-0001"]
    tasks = {p: [t["task"] for t in recorded_tasks(store, p, args.tasks)] for p in packages}
    packages = [p for p in packages if len(tasks[p]) >= 2]  # a first plan and a warm one
    if not packages:
        raise SystemExit("no app of --apps has two recorded tasks to plan")
    plans = {p: [memory.plan(t, p).model_dump() for t in ts] for p, ts in tasks.items()}
    tenants = [f"tenant-{n:02d}" for n in range(args.tenants)]
    ingest_ms: list[float] = []  # the worker's embedding of a layer, per contribution
    for n, tenant in enumerate(tenants):  # every tenant over the same apps, its own dates: its own traces
        for k in range(args.keys):
            for p in packages:
                for i, (task, plan) in enumerate(zip(tasks[p], plans[p])):
                    text = task if args.recalled else f"{tenant} run {i}"
                    for run in forged_runs(device, plan, text, f"2027-{n % 12 + 1:02d}-{k + 1:02d}T{i:02d}:00:00Z"):
                        ingest_ms.append(contribute(memory, run, tenant, f"{tenant}/key{k}", settings.trust_quorum))
    layers = [layer(store, t) for t in tenants]
    # a process's services, as a server's: one embedder, vector store and cache of tenants' points (the worker's)
    fresh = lambda: Service(store, memory.vectors, memory.embedder, settings, layers=memory.layers)  # noqa: E731
    for p in packages:  # the graph server's caches warmed: neither side pays for the first read
        measure(fresh(), p, tasks[p][:2])
        measure(fresh().viewing(tenants[0]), p, tasks[p][:2])
    apps = {}
    for p in packages:
        public: dict[str, list[float]] = {"first": [], "warm": []}
        tenant: dict[str, list[float]] = {"first": [], "warm": []}
        ever: dict[str, list[float]] = {"untenanted": [], "tenant": []}  # round 1: no view embedded its layer yet
        served: dict[str, list[float]] = {"untenanted": [], "tenant": []}  # the public graph preloaded
        for r in range(args.rounds):
            for t in tenants:
                for name, side, service in (("untenanted", public, fresh()), ("tenant", tenant, fresh().viewing(t))):
                    first, warm = measure(service, p, tasks[p])
                    side["warm"] += warm
                    if r > 0 or args.rounds == 1:
                        side["first"].append(first)
                    if r == 0 and t != tenants[0]:  # the warm-up embedded the first tenant's layer
                        ever[name].append(first)
                server = fresh()
                server.preload([p])
                served["untenanted"].append(timed(lambda: server.plan(tasks[p][0], p)))
                served["tenant"].append(timed(lambda: server.viewing(t).plan(tasks[p][0], p)))
        loads = {"untenanted": [phases(fresh(), p) for _ in tenants],
                 "tenant": [phases(fresh().viewing(t), p) for t in tenants]}
        med = {name: {k: statistics.median(v) for k, v in side.items()} for name, side in
               (("untenanted", public), ("tenant", tenant))}
        apps[p] = {"first_ms": {k: v["first"] for k, v in med.items()},
                   "warm_ms": {k: v["warm"] for k, v in med.items()},
                   "first_ratio": med["tenant"]["first"] / med["untenanted"]["first"],
                   # each tenant's first plan over the untenanted one measured just before it
                   "first_ratio_paired": statistics.median(t / u for u, t in zip(public["first"], tenant["first"])),
                   "warm_ratio": med["tenant"]["warm"] / med["untenanted"]["warm"], "tasks": len(tasks[p]),
                   "first_ever_ms": {k: statistics.median(v) for k, v in ever.items() if v},
                   "served_ms": {k: statistics.median(v) for k, v in served.items()},
                   "served_ratio": statistics.median(served["tenant"]) / statistics.median(served["untenanted"]),
                   "first_ever_ratio": statistics.median(ever["tenant"]) / statistics.median(ever["untenanted"])
                   if ever["tenant"] else None,
                   "load_ms": {side: {phase: statistics.median(row[phase] for row in rows) for phase in rows[0]}
                               for side, rows in loads.items()},
                   "elements": {"untenanted": len(fresh().planner().graph([p]).elements),
                                "tenant": statistics.median(len(fresh().viewing(t).planner().graph([p]).elements)
                                                            for t in tenants)}}
    first = statistics.median([a["first_ratio"] for a in apps.values()])
    paired = statistics.median([a["first_ratio_paired"] for a in apps.values()])
    warm = statistics.median([a["warm_ratio"] for a in apps.values()])
    served = statistics.median([a["served_ratio"] for a in apps.values()])
    size = {k: statistics.median([row[k] for row in layers]) for k in layers[0] if k != "apps"} if layers else {}
    return {"apps": apps, "first_ratio": first, "first_ratio_paired": paired, "warm_ratio": warm, "served_ratio": served, "met": first <= TARGET and warm <= TARGET,
            "tenants": args.tenants, "keys": args.keys, "layer": size, "recalled": args.recalled,
            "ingest_embed_ms": {"median": statistics.median(ingest_ms), "p90": statistics.quantiles(ingest_ms, n=10)[-1],
                                "contributions": len(ingest_ms)},
            "note": "twins are simulators: the layers' dumps are the recordings' screens they render"}


if __name__ == "__main__":
    sys.exit(main())
