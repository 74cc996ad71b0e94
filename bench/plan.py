"""Benchmark: plans for every shared DroidTask task from its first gold screen, exploration memory only.

The memory is AutoDroid's exploration (utg.yaml) of the six shared apps; no
gold demonstration is in it. Each task is planned in-process from its first
gold screen (what `appmem plan --screen-html` does), with no LLM, and scored by
../shared/eval/droidtask_score.py (success: the gold steps in order; target:
the last gold element in the plan; rrr: gold length / plan length on
successes; input_ok: every gold input value typed). Failure kinds:
  route_none    the plan says no route exists from the start
  wrong_target  the gold target is not in the plan
  missing_step  target reached, but a choice, value, item or confirm is missing or out of order
  wrong_input   a gold input value is not typed (counted on every task with inputs)
Baseline, same run and memory, named for what it is ("top-1 + cheapest
route"): the top retrieved target of the same ranking and the cheapest route
to it, without screen work, items or whole-plan scoring.

The planner's constants (OPTION_MIN, COVER_W, VALUE_W) are chosen
leave-one-app-out: for each app, the grid point best on the other five apps
(success, then target) is scored on it. The LOAO figures are the honest ones;
the default constants' figures are printed too. Plan latency (p50/p99) is
measured on the first pass, nothing cached but the app's UTG.

Then, unless --no-recall (or --json), the recall part (bench/recall.py, on a stack of
its own): app choice without --app from exploration memory only, then, WITH the gold
demonstrations in memory (that part is about recall), recall success on the same task
texts against the planner alone, recall with changed parameters, and the recall
threshold chosen leave-one-app-out.

With --failures, every failed plan is printed with its evidence (gold steps, plan steps, retrieval's
top 5, the gold target's rank) and counted per app by kind: after the target (missing option, wrong
value, ...), target absent from memory, target beyond retrieval's top 5, or the planner's choice
(the target in the top 5 and another chosen).

    .venv/bin/python -m appmem.bench.plan [--home DIR] [--keep DIR] [--no-loao] [--no-recall] [--json] [--failures]
"""
from __future__ import annotations

import argparse
import itertools
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


from appmem.bench import recall as recall_bench
from appmem.bench.common import (DROIDTASK, DROIDTASK_APPS, SHARED, exploration_memory, load_scorer, markdown_table,
                                  private_stack, write_results)

import appmem.agent.compose as compose
import appmem.semantic.ranking as ranking
from appmem.semantic.ranking import POOL
from appmem.agent.screenwork import label
import appmem.agent.screenwork as screenwork
import appmem.agent.taskparse as taskparse
from appmem.agent.locate import state_from_html
from appmem.agent.planjson import plan_to_dict
from appmem.agent.planner import Planner
from appmem.graph.clients import open_graph
from appmem.formats.ui import ActionType
from appmem.graph.model import Plan, PlanStep
from appmem.graph.vocabulary import CONFIRM_WORDS
from appmem.semantic.embedder import Embedder
from appmem.semantic.vectors import VectorStore, open_qdrant

GRID = {"OPTION_MIN": (0.6, 0.75, 1.0), "COVER_W": (0.0, 0.15, 0.3, 0.6), "VALUE_W": (0.0, 0.3, 0.6)}
OWNER = {"OPTION_MIN": screenwork, "COVER_W": compose, "VALUE_W": compose}


def load_tasks() -> dict[str, list[dict]]:
    return {app: json.loads((DROIDTASK / app / "tasks.json").read_text()) for app in DROIDTASK_APPS}


def baseline(planner: Planner, text: str, packages: list[str], start) -> Plan:
    """Top-1 target, cheapest route, no screen work."""
    graph, package = planner.graph(packages), packages[0]
    hits = planner.index(packages).search(planner.embedder.embed([text])[0], text, 1)
    origin = planner._starts(graph, packages, start)[0]
    target = graph.elements.get(hits[0].payload["element_id"]) if hits else None
    route = graph.route(origin[0], target.screen_id) if target and origin else None
    if route is None:
        return Plan(text, package, [], route="none")
    steps = [PlanStep(ActionType(e.action), graph.elements.get(e.element_id), e.source, e.detail) for e in route]
    action = ActionType.INPUT if "editable" in target.flags else ActionType.TAP
    return Plan(text, package, steps + [PlanStep(action, target, target.screen_id)])


def run_all(make_plan, tasks, packages) -> tuple[dict, list[float]]:
    plans, times = {}, []
    for app, items in tasks.items():
        for task in items:
            start = state_from_html(task["profile"][0]["state"], packages[app])
            began = time.perf_counter()
            plan = make_plan(task["task"], [packages[app]], start)
            times.append(1000 * (time.perf_counter() - began))
            plans[(app, task["task_id"])] = plan_to_dict(plan)
    return plans, times


def score(scorer, tasks, plans) -> dict:
    rows = []
    for app, items in tasks.items():
        for task in items:
            plan = plans[(app, task["task_id"])]
            r = scorer.score_task(task, plan)
            r.update(app=app, route=plan.get("route", "found"),
                     after=after_target(scorer, task, plan) if r["target"] and not r["success"] else None)
            rows.append(r)
    return summarise(rows)


def after_target(scorer, task: dict, plan: dict) -> str:
    """Why a plan that reaches the target still fails: the first gold step no plan step matches is an
    input (wrong value), a confirm button (missing confirm) or another tap (missing option); every gold
    step matched somewhere but not in order: wrong order."""
    steps = plan.get("steps") or []
    missing = [g for g in scorer.gold_steps(task) if not any(scorer.matches(g, p) for p in steps)]
    if not missing:
        return "wrong order"
    g = missing[0]
    if g["input"]:
        return "wrong value"
    return "missing confirm" if g["labels"] & CONFIRM_WORDS else "missing option"


def summarise(rows: list[dict]) -> dict:
    def block(rs: list[dict]) -> dict:
        n = len(rs) or 1
        rrr = [r["rrr"] for r in rs if r["rrr"] is not None]
        inputs = [r["input_ok"] for r in rs if r["input_ok"] is not None]
        kinds = {"route_none": sum(r["route"] == "none" for r in rs),
                 "wrong_target": sum(not r["target"] and r["route"] != "none" for r in rs),
                 "missing_step": sum(r["target"] and not r["success"] for r in rs),
                 "wrong_input": sum(r["input_ok"] is False for r in rs)}
        after = {k: sum(r.get("after") == k for r in rs)
                 for k in ("missing option", "wrong value", "missing confirm", "wrong order")}
        return {"tasks": len(rs), "success": sum(r["success"] for r in rs) / n, "target": sum(r["target"] for r in rs) / n,
                "rrr": sum(rrr) / len(rrr) if rrr else None, "input_ok": sum(inputs) / len(inputs) if inputs else None,
                "successes": sum(r["success"] for r in rs), "targets": sum(r["target"] for r in rs),
                "failures": kinds, "after_target": after}
    return {"all": block(rows), "apps": {app: block([r for r in rows if r["app"] == app]) for app in DROIDTASK_APPS}}


def loao(scorer, tasks, packages, planner: Planner) -> dict:
    """Leave-one-app-out over GRID: per held-out app, the other apps' best constants."""
    defaults = {name: getattr(OWNER[name], name) for name in GRID}
    results = {}
    for values in itertools.product(*GRID.values()):
        for name, value in zip(GRID, values):
            setattr(OWNER[name], name, value)
        plans, _ = run_all(planner.plan, tasks, packages)
        results[values] = score(scorer, tasks, plans)["apps"]
    for name, value in defaults.items():
        setattr(OWNER[name], name, value)
    held = {}
    for app in DROIDTASK_APPS:
        def others(values):
            rs = [results[values][a] for a in DROIDTASK_APPS if a != app]
            return (sum(r["successes"] for r in rs), sum(r["targets"] for r in rs))
        chosen = max(results, key=others)
        held[app] = {"constants": dict(zip(GRID, chosen)), **results[chosen][app]}
    n = sum(h["tasks"] for h in held.values())
    rrrs = [h["rrr"] * h["successes"] for h in held.values() if h["rrr"] is not None]
    return {"apps": held, "success": sum(h["successes"] for h in held.values()) / n,
            "target": sum(h["targets"] for h in held.values()) / n,
            "rrr": sum(rrrs) / max(1, sum(h["successes"] for h in held.values() if h["rrr"] is not None))}


RULE_OWNERS = {"taskparse": taskparse, "screenwork": screenwork, "compose": compose}


def rule_ablation(scorer, tasks, packages, planner: Planner) -> dict:
    """Each special rule (the RULES of agent/taskparse.py, screenwork.py, compose.py) measured with and
    without, per app; then leave-one-app-out: each fold keeps a rule only when it adds successes on the
    other five apps, and the held-out app is planned with the rules its fold kept."""
    rules = [f"{name}.{rule}" for name, module in RULE_OWNERS.items() for rule in module.RULES]

    def run(off: set[str]) -> dict:
        saved = {name: dict(module.RULES) for name, module in RULE_OWNERS.items()}
        for r in off:
            name, rule = r.split(".")
            RULE_OWNERS[name].RULES[rule] = False
        try:
            return score(scorer, tasks, run_all(planner.plan, tasks, packages)[0])["apps"]
        finally:
            for name, module in RULE_OWNERS.items():
                module.RULES.update(saved[name])

    def others(result: dict, app: str) -> int:
        return sum(result[a]["successes"] for a in DROIDTASK_APPS if a != app)

    with_all = run(set())
    without = {r: run({r}) for r in rules}
    kept = {app: {r for r in rules if others(with_all, app) > others(without[r], app)} for app in DROIDTASK_APPS}
    held = {app: run(set(rules) - kept[app])[app] for app in DROIDTASK_APPS}
    n = sum(h["tasks"] for h in held.values())
    return {"with_all": with_all, "without": without, "kept": {a: sorted(k) for a, k in kept.items()},
            "held": held, "success": sum(h["successes"] for h in held.values()) / n}


def rule_report(r: dict) -> None:
    print("== special rules: successes with the rule / without it, per app; folds (of 6) that keep it "
          "(it adds successes on the other five apps)")
    print(f"{'rule':<30}" + "".join(f"{a[:8]:>10}" for a in DROIDTASK_APPS) + f"{'all':>9}{'kept':>6}")
    total = lambda res: sum(res[a]["successes"] for a in DROIDTASK_APPS)  # noqa: E731
    for rule, res in r["without"].items():
        cells = "".join(f"{r['with_all'][a]['successes']:>5}/{res[a]['successes']:<4}" for a in DROIDTASK_APPS)
        folds = sum(rule in k for k in r["kept"].values())
        print(f"{rule:<30}{cells}{total(r['with_all']):>4}/{total(res):<4}{folds:>6}")
    print(f"leave-one-app-out with the rules each fold keeps: success {r['success']:.1%}; per app: " +
          ", ".join(f"{a} {h['success']:.0%}" for a, h in r["held"].items()))


def with_ranker(scorer, tasks, packages, planner: Planner, store, vectors, embedder) -> dict:
    """The planner (default constants and rules) with the learned ranker, leave-one-app-out: each app's
    index re-ranked by a model trained on the OTHER apps' synthetic tasks (semantic/synthetic.py) only."""
    from appmem.semantic.ranker import Ranker
    from appmem.semantic.training import KIND, SEED, app_examples, fit_on

    examples = {app: app_examples(store, vectors, embedder, packages[app]) for app in DROIDTASK_APPS}
    for app in DROIDTASK_APPS:
        others = [a for a in DROIDTASK_APPS if a != app]
        model = fit_on([examples[a] for a in others], KIND, SEED)
        planner.index([packages[app]]).ranker = Ranker(model)
    try:
        plans, _ = run_all(planner.plan, tasks, packages)
        return score(scorer, tasks, plans)
    finally:
        for package in packages.values():
            planner.index([package]).ranker = None


def failures(scorer, tasks, plans, planner: Planner, packages) -> list[dict]:
    """Every failed plan with its evidence: the task, the gold steps, the plan's steps, retrieval's top 5
    and where retrieval ranks the gold target (an element labelled as the last gold step; None: no
    element of the memory is). Kind: after the target (why, as after_target), target absent from
    memory, target beyond retrieval's top 5, or in the top 5 and the planner chose another."""
    out = []
    for app, items in tasks.items():
        graph, index = planner.graph([packages[app]]), planner.index([packages[app]])
        for task in items:
            plan = plans[(app, task["task_id"])]
            r = scorer.score_task(task, plan)
            if r["success"]:
                continue
            gold = scorer.gold_steps(task)
            shown = lambda e: {scorer.norm(e.text), scorer.norm(e.content_desc)} - {""}  # noqa: E731
            ranked = [graph.elements.get(h.payload.get("element_id")) for h in
                      index.search(planner.embedder.query(task["task"]), task["task"], POOL)]
            ranked = [e for e in ranked if e is not None]
            rank = next((k for k, e in enumerate(ranked) if shown(e) & gold[-1]["labels"]), None)
            kind = (f"after target: {after_target(scorer, task, plan)}" if r["target"] else
                    "target absent" if rank is None else "target beyond top 5" if rank >= 5 else "planner's choice")
            out.append({"app": app, "task": task["task"], "kind": kind, "rank": rank,
                        "gold": [" / ".join(sorted(g["labels"])) + (f" = {g['value']}" if g["value"] else "") for g in gold],
                        "plan": [scorer.norm(" / ".join(x for x in ((s.get("element") or {}).get(k) for k in ("text", "content_desc")) if x))
                                 + (f" = {s['input']}" if s.get("input") else "") for s in plan.get("steps") or []],
                        "top5": [label(e) for e in ranked[:5]]})
    return out


def failure_report(rows: list[dict]) -> None:
    print("== failed plans with their evidence (default constants): kind, gold target's retrieval rank")
    for r in rows:
        print(f"  [{r['app']}] {r['task']}\n    {r['kind']} (rank {r['rank']})\n    gold: {r['gold']}\n"
              f"    plan: {r['plan']}\n    top 5: {r['top5']}")
    kinds = sorted({r["kind"] for r in rows})
    print(f"{'kind':<32}" + "".join(f"{a[:8]:>10}" for a in DROIDTASK_APPS) + f"{'all':>6}")
    for kind in kinds:
        n = [sum(r["kind"] == kind and r["app"] == a for r in rows) for a in DROIDTASK_APPS]
        print(f"{kind:<32}" + "".join(f"{x:>10}" for x in n) + f"{sum(n):>6}")


def official(tasks, plans, out: Path) -> dict:
    """The shared scorer's own CLI over the written plans (the figure others re-measure)."""
    for (app, task_id), plan in plans.items():
        (out / app).mkdir(parents=True, exist_ok=True)
        (out / app / f"{task_id}.json").write_text(json.dumps(plan))
    done = subprocess.run([sys.executable, str(SHARED / "eval" / "droidtask_score.py"), str(DROIDTASK), str(out),
                           "--json"], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)["summary"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, help="reuse (or build) the memory in this folder")
    parser.add_argument("--keep", type=Path, help="write the plans here")
    parser.add_argument("--no-loao", action="store_true", help="skip the leave-one-app-out grid")
    parser.add_argument("--no-recall", action="store_true", help="skip the recall part (bench/recall.py)")
    parser.add_argument("--json", action="store_true", help="print the plan figures as JSON (no recall part)")
    parser.add_argument("--failures", action="store_true", help="print every failed plan with its evidence, by kind")
    parser.add_argument("--follow", choices=("on", "off"), default="on" if ranking.FOLLOW else "off",
                        help="ranking stage 3: a confirm follows its screen's opener (semantic/ranking.py)")
    args = parser.parse_args()
    ranking.FOLLOW = args.follow == "on"
    scorer, tasks = load_scorer(), load_tasks()
    with private_stack(args.home) as settings:
        store, client = open_graph(settings), open_qdrant(settings)
        try:
            embedder = Embedder(settings.home, model=settings.embed_model)
            vectors = VectorStore(client, embedder.dim)
            packages = exploration_memory(store, vectors, embedder, settings)
            planner = Planner(store, vectors, embedder)
            for package in packages.values():  # what a long-running planner holds: UTG and element vectors
                planner.graph([package])
                planner.index([package])
            plans, times = run_all(planner.plan, tasks, packages)
            base_plans, base_times = run_all(lambda t, p, s: baseline(planner, t, p, s), tasks, packages)
            result = {"planner": score(scorer, tasks, plans), "baseline": score(scorer, tasks, base_plans),
                      "latency_ms": {"p50": statistics.median(times), "p99": sorted(times)[int(0.99 * (len(times) - 1))],
                                     "baseline_p50": statistics.median(base_times)}}
            if args.failures:
                result["failures"] = failures(scorer, tasks, plans, planner, packages)
            result["ranker"] = with_ranker(scorer, tasks, packages, planner, store, vectors, embedder)
            if not args.no_loao:
                result["loao"] = loao(scorer, tasks, packages, planner)
                result["rules"] = rule_ablation(scorer, tasks, packages, planner)
        finally:
            client.close()
            store.driver.close()
    with tempfile.TemporaryDirectory(prefix="appmem-plans-") as tmp:
        result["official"] = official(tasks, plans, args.keep or Path(tmp))
    write_plan_results(result)
    if args.json:
        print(json.dumps(result, indent=1, default=str))
        return 0
    report(result)
    if not args.no_recall:
        print("== recall and app choice (bench/recall.py)")
        recall_bench.run()
    return 0


def write_plan_results(result: dict) -> None:
    """The headline table for the docs: success and target per app, the planner against the same-run baseline,
    and leave-one-app-out when it ran."""
    constants, rules = result.get("loao", {}), result.get("rules", {})
    rows = []
    for app, s in [*result["planner"]["apps"].items(), ("all", result["planner"]["all"])]:
        b = result["baseline"]["apps"].get(app) if app != "all" else result["baseline"]["all"]
        held = [part.get("apps" if part is constants else "held", {}).get(app) if app != "all" else part
                for part in (constants, rules)]
        rows.append([f"**{app}**" if app == "all" else app, s["tasks"], f"{s['success']:.1%}", f"{s['target']:.1%}",
                     f"{b['success']:.1%}", f"{b['target']:.1%}",
                     *(f"{h['success']:.1%}" if h else "not run" for h in held)])
    p, b = result["planner"]["all"], result["baseline"]["all"]
    lat, o = result["latency_ms"], result["official"]
    table = markdown_table(["app", "tasks", "success", "target", "baseline success", "baseline target",
                            "leave-one-app-out success: constants", "leave-one-app-out success: rule switches"], rows)
    table += (f"\nPlanner / baseline: success {p['success'] / max(b['success'], 1e-9):.2f}x, target "
              f"{p['target'] / max(b['target'], 1e-9):.2f}x. Latency p50 {lat['p50']:.1f} ms, p99 {lat['p99']:.1f} ms "
              f"(baseline p50 {lat['baseline_p50']:.1f} ms). The shared scorer (`droidtask_score.py`): success "
              f"{o['success_rate']:.1%}, target {o['target_rate']:.1%}, LLM calls {o['llm_calls']}.\n")
    write_results("plan", table, {k: v for k, v in result.items() if k != "failures"},
                  "top-1 retrieved target + the cheapest route to it",
                  "DroidTask tasks planned from their first gold screen, exploration memory only (no gold "
                  "demonstration), no LLM; strict success: the gold steps and no others, with the right values.")


def report(result: dict) -> None:
    def line(name: str, s: dict) -> str:
        rrr = f"{s['rrr']:.2f}" if s["rrr"] is not None else "-"
        inp = f"{s['input_ok']:.0%}" if s.get("input_ok") is not None else "-"
        return f"{name:<12} {s['tasks']:>5} {s['success']:>8.1%} {s['target']:>7.1%} {rrr:>5} {inp:>6}  {s['failures']}"

    for which in ("baseline", "planner", "ranker"):
        name = {"baseline": "baseline: top-1 target + cheapest route",
                "ranker": "planner + learned ranker, leave-one-app-out (trained on the other apps' synthetic tasks)"
                }.get(which, which)
        print(f"== {name} (default constants)")
        print(f"{'app':<12} {'tasks':>5} {'success':>8} {'target':>7} {'rrr':>5} {'input':>6}  failures")
        for app, s in result[which]["apps"].items():
            print(line(app, s))
        print(line("all", result[which]["all"]))
    b, p = result["baseline"]["all"], result["planner"]["all"]
    print(f"planner / (top-1 + cheapest route): success {p['success'] / max(b['success'], 1e-9):.2f}x, "
          f"target {p['target'] / max(b['target'], 1e-9):.2f}x")
    lat = result["latency_ms"]
    print(f"latency: p50 {lat['p50']:.1f} ms, p99 {lat['p99']:.1f} ms (baseline p50 {lat['baseline_p50']:.1f} ms)")
    if "loao" in result:
        lo = result["loao"]
        print(f"== leave-one-app-out: success {lo['success']:.1%}, target {lo['target']:.1%}, rrr {lo['rrr']:.2f}")
        for app, s in lo["apps"].items():
            print(f"  {app:<12} success {s['success']:.1%} target {s['target']:.1%} constants {s['constants']}")
    print("== tasks that reach the target but fail, by kind (default constants)")
    for app, s in [*result["planner"]["apps"].items(), ("all", result["planner"]["all"])]:
        print(f"  {app:<12} {s['after_target']}")
    if "rules" in result:
        rule_report(result["rules"])
    if "failures" in result:
        failure_report(result["failures"])
    o = result["official"]
    print(f"shared scorer (default constants): success {o['success_rate']:.1%}, target {o['target_rate']:.1%}, "
          f"rrr {o['mean_rrr_on_success']}, llm calls {o['llm_calls']}")


if __name__ == "__main__":
    sys.exit(main())
