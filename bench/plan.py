"""Benchmark: plans for every shared DroidTask task from its first gold screen, exploration memory only.

The memory is AutoDroid's exploration (utg.yaml) of the six shared apps; no
gold demonstration is in it. Each task is planned in-process from its first
gold screen (what `appmem plan --screen-html` does), with no LLM, and scored by
../shared/eval/droidtask_score.py. Per app it prints:
  exact     THE HEADLINE: the plan is the gold trace (same length, each step matches, every typed
            value equals the gold value): what the task asks and nothing else
  lenient   the gold steps occur in the plan in order, whatever else it does (comparison only:
            no rule or constant is chosen by it)
  rrr       gold length / plan length, on lenient successes
  unasked   unasked state changes: toggles, choices and risky taps in a plan that match no step
            of the gold trace (what an agent running the plan would change that nobody asked for)
Failure kinds: route_none (no route), wrong_target (the gold target is not in the plan),
missing_step (target reached, a gold step missing or out of order), wrong_input, and padded (lenient
but not exact: the plan does more than the gold trace).

Baselines, same run: the named earlier commit (--baseline, default main): its own
bench writes its plans (on a memory of its own, built from the same data), and they are
scored here as the planner's are; and "top-1 + cheapest route" (the top retrieved target
and the cheapest route to it, without screen work) on this run's memory.

Options are one frozen PlannerConfig (appmem/planconfig.py); variants are made with
dataclasses.replace and passed to Planner.plan, nothing else changes. Leave-one-app-out:
for each app, the grid point (GRID) best on the other five apps (exact, then fewer unasked
state changes; the defaults on ties) is scored on it, and so, on its own, for the element ranking's
constant (RANKING_GRID: RankingConfig.lexical_weight); the rule table flips each rule of the defaults
and each fold keeps a rule's default state unless the flipped state is better on the other
five apps by the same order; the held-out app is planned with its fold's rules. The LOAO
figures are the honest ones; the defaults' figures are printed too.

Then, unless --no-recall (or --json), the recall part (bench/recall.py, on a stack of its own).

    .venv/bin/python -m appmem.bench.plan [--home DIR] [--keep DIR] [--baseline REV|none] [--no-loao]
        [--no-recall] [--json] [--failures]
"""
from __future__ import annotations

import argparse
import io
import itertools
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from appmem.bench import recall as recall_bench
from appmem.bench.common import (DROIDTASK, DROIDTASK_APPS, SHARED, exploration_memory, load_scorer, markdown_table,
                                 options_changed, private_stack, write_results)

from appmem.agent.appgraph import AppGraph
from appmem.agent.locate import state_from_html
from appmem.agent.planjson import agent_plan
from appmem.agent.planner import Planner
from appmem.agent.screenwork import label
from appmem.formats.ui import ActionType
from appmem.graph.clients import open_graph
from appmem.graph.model import Element, RoutePlan, RouteStep
from appmem.graph.vocabulary import CONFIRM_WORDS, role_of
from appmem.planconfig import PlannerConfig
from appmem.semantic.embedder import Embedder
from appmem.semantic.vectors import VectorStore, open_qdrant

REPO = Path(__file__).resolve().parents[1]
GRID = {"option_min": (0.6, 0.75, 1.0), "cover_w": (0.0, 0.15, 0.3, 0.6), "value_w": (0.0, 0.3, 0.6)}
RANKING_GRID = {"lexical_weight": (0.0, 0.05, 0.1, 0.2, 0.3)}  # the ranking's constant (RankingConfig), on its own


def load_tasks() -> dict[str, list[dict]]:
    return {app: json.loads((DROIDTASK / app / "tasks.json").read_text()) for app in DROIDTASK_APPS}


def baseline(planner: Planner, text: str, packages: list[str], start, config: PlannerConfig) -> RoutePlan:
    """Top-1 target, cheapest route, no screen work."""
    graph, package = planner.graph(packages), packages[0]
    hits = planner.index(packages).search(planner.embedder.embed([text])[0], text, 1, config.ranking)
    origin = planner._starts(graph, packages, start)[0]
    target = graph.elements.get(hits[0].payload["element_id"]) if hits else None
    route = graph.route(origin[0], target.screen_id) if target and origin else None
    if route is None:
        return RoutePlan(text, package, [], route="none")
    steps = [RouteStep(ActionType(e.action), graph.elements.get(e.element_id), e.source, e.detail) for e in route]
    action = ActionType.INPUT if "editable" in target.flags else ActionType.TAP
    return RoutePlan(text, package, steps + [RouteStep(action, target, target.screen_id)])


def run_all(make_plan, tasks, packages, config: PlannerConfig) -> tuple[dict, list[float]]:
    plans, times = {}, []
    for app, items in tasks.items():
        for task in items:
            start = state_from_html(task["profile"][0]["state"], packages[app])
            began = time.perf_counter()
            plan = make_plan(task["task"], [packages[app]], start, config=config)
            times.append(1000 * (time.perf_counter() - began))
            plans[(app, task["task_id"])] = agent_plan(plan).model_dump()
    return plans, times


def changes_state(graph: AppGraph, step: dict) -> bool:
    """A step that changes the app's state: a toggle or choice (checkbox, switch, radio row), or a risky tap."""
    if step.get("risky"):
        return True
    element = step.get("element") or {}
    known = graph.elements.get(element.get("id") or "")
    e = known or Element("", "", class_name=element.get("class_name") or "")
    return step.get("action") in ("tap", "long_tap") and role_of(e) == "toggle"


def unasked(scorer, graph: AppGraph, task: dict, plan: dict) -> int:
    """Unasked state changes: state-changing steps of the plan that match no step of the gold trace."""
    gold = scorer.gold_steps(task)
    return sum(changes_state(graph, p) and not any(scorer.matches(g, p) for g in gold) for p in plan.get("steps") or [])


def score(scorer, tasks, plans, graphs: dict[str, AppGraph]) -> dict:
    rows = []
    for app, items in tasks.items():
        for task in items:
            plan = plans[(app, task["task_id"])]
            r = scorer.score_task(task, plan)
            r.update(app=app, route=plan.get("route", "found"), unasked=unasked(scorer, graphs[app], task, plan),
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
                 "padded": sum(r["success"] and not r["exact"] for r in rs),
                 "wrong_input": sum(r["input_ok"] is False for r in rs)}
        after = {k: sum(r.get("after") == k for r in rs)
                 for k in ("missing option", "wrong value", "missing confirm", "wrong order")}
        return {"tasks": len(rs), "exact": sum(r["exact"] for r in rs) / n, "success": sum(r["success"] for r in rs) / n,
                "target": sum(r["target"] for r in rs) / n,
                "rrr": sum(rrr) / len(rrr) if rrr else None, "input_ok": sum(inputs) / len(inputs) if inputs else None,
                "exacts": sum(r["exact"] for r in rs), "successes": sum(r["success"] for r in rs),
                "targets": sum(r["target"] for r in rs), "rrr_sum": sum(rrr), "unasked": sum(r["unasked"] for r in rs),
                "failures": kinds, "after_target": after}
    return {"all": block(rows), "apps": {app: block([r for r in rows if r["app"] == app]) for app in DROIDTASK_APPS}}


def order(apps: dict, held: str) -> tuple:
    """How a fold ranks a variant on the apps other than `held`: exact plans, then fewer unasked state
    changes (lenient success and targets reached never decide)."""
    rs = [apps[a] for a in DROIDTASK_APPS if a != held]
    return sum(r["exacts"] for r in rs), -sum(r["unasked"] for r in rs)


def pooled(held: dict) -> dict:
    """The held-out apps' blocks pooled into one (each app scored with its own fold's choice)."""
    n = sum(h["tasks"] for h in held.values()) or 1
    lenient = sum(h["successes"] for h in held.values())
    return {"tasks": n, "exact": sum(h["exacts"] for h in held.values()) / n, "success": lenient / n,
            "target": sum(h["targets"] for h in held.values()) / n,
            "rrr": sum(h["rrr_sum"] for h in held.values()) / lenient if lenient else None,
            "unasked": sum(h["unasked"] for h in held.values())}


def loao(measure, default: PlannerConfig) -> dict:
    """Leave-one-app-out over GRID: per held-out app, the grid point best on the other five apps."""
    results = {values: measure(replace(default, **dict(zip(GRID, values)))) for values in itertools.product(*GRID.values())}
    return held_out(results, GRID, tuple(getattr(default, name) for name in GRID))


def loao_ranking(measure, default: PlannerConfig) -> dict:
    """Leave-one-app-out over RANKING_GRID (the element ranking's constants, the planner's at their defaults):
    per held-out app, the value best on the other five apps by `order`."""
    points = list(itertools.product(*RANKING_GRID.values()))
    results = {values: measure(replace(default, ranking=replace(default.ranking, **dict(zip(RANKING_GRID, values)))))
               for values in points}
    return held_out(results, RANKING_GRID, tuple(getattr(default.ranking, name) for name in RANKING_GRID))


def held_out(results: dict, grid: dict, shipped: tuple) -> dict:
    """Per held-out app, the grid point (`results` by its values) best on the other five apps by `order`, the
    point nearest the shipped values on a tie (bench/common.options_changed); pooled over the apps."""
    held = {}
    for app in DROIDTASK_APPS:
        chosen = max(results, key=lambda values: (order(results[values], app), -options_changed(values, shipped)))
        held[app] = {"constants": dict(zip(grid, chosen)), **results[chosen][app]}
    return {"apps": held, **pooled(held)}


def rule_table(measure, default: PlannerConfig) -> dict:
    """Each rule of `default` flipped, per app; then leave-one-app-out: each fold keeps a rule's default
    state unless the flipped state is better on the other five apps (`order`), and the held-out app is
    planned with the rules its fold chose. A rule no fold wants on is a candidate for deletion."""
    rules = PlannerConfig.rules()
    base = measure(default)
    flipped = {r: measure(replace(default, **{r: not getattr(default, r)})) for r in rules}
    chosen = {app: {r: (not getattr(default, r)) if order(flipped[r], app) > order(base, app) else getattr(default, r)
                    for r in rules} for app in DROIDTASK_APPS}
    held = {app: measure(replace(default, **chosen[app]))[app] for app in DROIDTASK_APPS}
    return {"default": base, "flipped": flipped, "on": {app: sorted(r for r, v in c.items() if v) for app, c in chosen.items()},
            "held": held, **pooled(held)}


def rule_report(r: dict, default: PlannerConfig) -> None:
    print("== rules: exact plans with the default / the rule flipped, per app; folds (of 6) that want it on")
    print(f"{'rule':<18}{'default':>8}" + "".join(f"{a[:8]:>10}" for a in DROIDTASK_APPS) + f"{'all':>9}{'on':>4}")
    total = lambda res: sum(res[a]["exacts"] for a in DROIDTASK_APPS)  # noqa: E731
    for rule, res in r["flipped"].items():
        cells = "".join(f"{r['default'][a]['exacts']:>5}/{res[a]['exacts']:<4}" for a in DROIDTASK_APPS)
        folds = sum(rule in on for on in r["on"].values())
        print(f"{rule:<18}{'on' if getattr(default, rule) else 'off':>8}{cells}{total(r['default']):>4}/{total(res):<4}{folds:>4}")
    print(f"leave-one-app-out with the rules each fold chose: exact {r['exact']:.1%}, lenient {r['success']:.1%}, "
          f"unasked {r['unasked']}; per app: " + ", ".join(f"{a} {h['exact']:.0%}" for a, h in r["held"].items()))


def with_ranker(scorer, tasks, packages, planner: Planner, store, vectors, embedder, graphs, config) -> dict:
    """The planner (default options) with the learned ranker, leave-one-app-out: each app's index
    re-ranked by a model trained on the OTHER apps' synthetic tasks (semantic/synthetic.py) only."""
    from appmem.semantic.ranker import Ranker
    from appmem.semantic.training import KIND, SEED, app_examples, fit_on

    examples = {app: app_examples(store, vectors, embedder, packages[app]) for app in DROIDTASK_APPS}
    for app in DROIDTASK_APPS:
        others = [a for a in DROIDTASK_APPS if a != app]
        model = fit_on([examples[a] for a in others], KIND, SEED)
        planner.index([packages[app]]).ranker = Ranker(model)
    try:
        plans, _ = run_all(planner.plan, tasks, packages, config)
        return score(scorer, tasks, plans, graphs)
    finally:
        for package in packages.values():
            planner.index([package]).ranker = None


def failures(scorer, tasks, plans, planner: Planner, packages, config: PlannerConfig) -> list[dict]:
    """Every plan that is not exact, with its evidence: the task, the gold steps, the plan's steps,
    retrieval's top 5 and where retrieval ranks the gold target (an element labelled as the last gold step;
    None: no element of the memory is). Kind: padded (lenient, not exact), after the target (why, as
    after_target), target absent from memory, target beyond retrieval's top 5, or in the top 5 and the
    planner chose another."""
    out = []
    for app, items in tasks.items():
        graph, index = planner.graph([packages[app]]), planner.index([packages[app]])
        for task in items:
            plan = plans[(app, task["task_id"])]
            r = scorer.score_task(task, plan)
            if r["exact"]:
                continue
            gold = scorer.gold_steps(task)
            shown = lambda e: {scorer.norm(e.text), scorer.norm(e.content_desc)} - {""}  # noqa: E731
            ranked = [graph.elements.get(h.payload.get("element_id")) for h in
                      index.search(planner.embedder.query(task["task"]), task["task"], config.pool, config.ranking)]
            ranked = [e for e in ranked if e is not None]
            rank = next((k for k, e in enumerate(ranked) if shown(e) & gold[-1]["labels"]), None)
            kind = ("padded" if r["success"] else f"after target: {after_target(scorer, task, plan)}" if r["target"]
                    else "target absent" if rank is None else "target beyond top 5" if rank >= 5 else "planner's choice")
            out.append({"app": app, "task": task["task"], "kind": kind, "rank": rank,
                        "gold": [" / ".join(sorted(g["labels"])) + (f" = {g['value']}" if g["value"] else "") for g in gold],
                        "plan": [scorer.norm(" / ".join(x for x in ((s.get("element") or {}).get(k) for k in ("text", "content_desc")) if x))
                                 + (f" = {s['input']}" if s.get("input") else "") for s in plan.get("steps") or []],
                        "top5": [label(e) for e in ranked[:5]]})
    return out


def failure_report(rows: list[dict]) -> None:
    print("== plans that are not exact, with their evidence (default options): kind, gold target's retrieval rank")
    for r in rows:
        print(f"  [{r['app']}] {r['task']}\n    {r['kind']} (rank {r['rank']})\n    gold: {r['gold']}\n"
              f"    plan: {r['plan']}\n    top 5: {r['top5']}")
    kinds = sorted({r["kind"] for r in rows})
    print(f"{'kind':<32}" + "".join(f"{a[:8]:>10}" for a in DROIDTASK_APPS) + f"{'all':>6}")
    for kind in kinds:
        n = [sum(r["kind"] == kind and r["app"] == a for r in rows) for a in DROIDTASK_APPS]
        print(f"{kind:<32}" + "".join(f"{x:>10}" for x in n) + f"{sum(n):>6}")


def write_plans(plans: dict, out: Path) -> None:
    for (app, task_id), plan in plans.items():
        (out / app).mkdir(parents=True, exist_ok=True)
        (out / app / f"{task_id}.json").write_text(json.dumps(plan))


def read_plans(tasks, folder: Path) -> dict:
    return {(app, t["task_id"]): json.loads(p.read_text()) if (p := folder / app / f"{t['task_id']}.json").exists()
            else {"steps": [], "route": "none"} for app, items in tasks.items() for t in items}


def official(plans, out: Path) -> dict:
    """The shared scorer's own CLI over the written plans (the figure others re-measure)."""
    write_plans(plans, out)
    done = subprocess.run([sys.executable, str(SHARED / "eval" / "droidtask_score.py"), str(DROIDTASK), str(out),
                           "--json"], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)["summary"]


def commit_plans(rev: str, tasks) -> tuple[str, dict]:
    """The plans of commit `rev`'s own planner (its bench, --keep, on a private stack and memory of its own):
    the same-run baseline. The commit's tree is read with `git archive` (nothing in the repository changes)."""
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", rev], capture_output=True, text=True,
                            check=True).stdout.strip()
    tree = subprocess.run(["git", "-C", str(REPO), "archive", commit], capture_output=True, check=True).stdout
    with tempfile.TemporaryDirectory(prefix="appmem-baseline-") as tmp:
        root = Path(tmp) / "repo"  # its bench finds ../shared beside its tree
        with tarfile.open(fileobj=io.BytesIO(tree)) as archive:
            archive.extractall(root, filter="tar")
        (Path(tmp) / "shared").symlink_to(SHARED)
        out = Path(tmp) / "plans"
        # its own same-run baseline would need a repository its extracted tree is not: none, where it has the option
        own = ["--baseline", "none"] if "--baseline" in (root / "bench" / "plan.py").read_text() else []
        subprocess.run([sys.executable, "-m", "appmem.bench.plan", "--no-loao", "--no-recall", "--json", *own, "--keep",
                        str(out)], cwd=root, env={**os.environ, "PYTHONPATH": str(root)}, check=True,
                       stdout=subprocess.DEVNULL)
        return commit, read_plans(tasks, out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, help="reuse (or build) the memory in this folder")
    parser.add_argument("--keep", type=Path, help="write the plans here")
    parser.add_argument("--baseline", default="main",
                        help="the commit whose planner is the same-run baseline ('none': no such baseline)")
    parser.add_argument("--no-loao", action="store_true", help="skip the leave-one-app-out grid and rule table")
    parser.add_argument("--no-recall", action="store_true", help="skip the recall part (bench/recall.py)")
    parser.add_argument("--json", action="store_true", help="print the plan figures as JSON (no recall part)")
    parser.add_argument("--failures", action="store_true", help="print every plan that is not exact, with its evidence")
    args = parser.parse_args()
    scorer, tasks = load_scorer(), load_tasks()
    earlier = commit_plans(args.baseline, tasks) if args.baseline != "none" else None
    with private_stack(args.home) as settings:
        store, client = open_graph(settings), open_qdrant(settings)
        default = settings.planner
        try:
            embedder = Embedder(settings.home, model=settings.embed_model)
            vectors = VectorStore(client, embedder.dim)
            vectors.claim_model(settings.embed_model)  # a --home built with another model: refused, not mixed
            packages = exploration_memory(store, vectors, embedder, settings)
            planner = Planner(store, vectors, embedder, config=default)
            graphs = {app: planner.graph([package]) for app, package in packages.items()}
            for package in packages.values():  # what a long-running planner holds: UTG and element vectors
                planner.index([package])
            measure = lambda config: score(scorer, tasks, run_all(planner.plan, tasks, packages, config)[0], graphs)["apps"]  # noqa: E731
            plans, times = run_all(planner.plan, tasks, packages, default)
            base_plans, base_times = run_all(lambda t, p, s, config: baseline(planner, t, p, s, config), tasks, packages,
                                             default)
            result = {"planner": score(scorer, tasks, plans, graphs), "top1": score(scorer, tasks, base_plans, graphs),
                      "latency_ms": {"p50": statistics.median(times), "p99": sorted(times)[int(0.99 * (len(times) - 1))],
                                     "top1_p50": statistics.median(base_times)}}
            if earlier is not None:
                result["commit"] = {"rev": earlier[0], **score(scorer, tasks, earlier[1], graphs)}
            if args.failures:
                result["failures"] = failures(scorer, tasks, plans, planner, packages, default)
            result["ranker"] = with_ranker(scorer, tasks, packages, planner, store, vectors, embedder, graphs, default)
            if not args.no_loao:
                result["loao"] = loao(measure, default)
                result["loao_ranking"] = loao_ranking(measure, default)
                result["rules"] = rule_table(measure, default)
        finally:
            client.close()
            store.driver.close()
    with tempfile.TemporaryDirectory(prefix="appmem-plans-") as tmp:
        result["official"] = official(plans, args.keep or Path(tmp))
    write_plan_results(result)
    if args.json:
        print(json.dumps(result, indent=1, default=str))
        return 0
    report(result, default)
    if not args.no_recall:
        print("== recall and app choice (bench/recall.py)")
        recall_bench.run()
    return 0


def write_plan_results(result: dict) -> None:
    """The headline table for the docs: per app, exact (the headline), lenient, RRR and unasked state changes
    with the default options, against the same-run baselines, and leave-one-app-out when it ran."""
    def cell(part: dict | None) -> str:
        return f"{part['exact']:.1%}" if part else "not run"

    rows = []
    constants, rules = result.get("loao"), result.get("rules")
    for app, s in [*result["planner"]["apps"].items(), ("all", result["planner"]["all"])]:
        scored = lambda part: (part["apps"][app] if app != "all" else part["all"]) if part else None  # noqa: E731
        held = lambda part, key: (part[key][app] if app != "all" else part) if part else None  # noqa: E731
        rrr = f"{s['rrr']:.2f}" if s["rrr"] is not None else "-"
        rows.append([f"**{app}**" if app == "all" else app, s["tasks"], f"**{s['exact']:.1%}**", f"{s['success']:.1%}",
                     rrr, s["unasked"], cell(scored(result.get("commit"))), cell(scored(result["top1"])),
                     cell(held(constants, "apps")), cell(held(rules, "held"))])
    baseline = f"commit {result['commit']['rev']}'s planner" if "commit" in result else "no earlier commit"
    table = markdown_table(["app", "tasks", "exact", "lenient", "RRR", "unasked changes", f"exact: {baseline}",
                            "exact: top-1 + cheapest route", "exact, leave-one-app-out: constants",
                            "exact, leave-one-app-out: rule switches"], rows)
    lat, o = result["latency_ms"], result["official"]
    table += gap_line(result)
    table += (f"\nLatency p50 {lat['p50']:.1f} ms, p99 {lat['p99']:.1f} ms. The shared scorer (`droidtask_score.py`): "
              f"exact {o['exact_rate']:.1%}, lenient {o['success_rate']:.1%}, LLM calls {o['llm_calls']}. "
              "Lenient is for comparison only: no rule or constant is chosen by it.\n")
    write_results("plan", table, {k: v for k, v in result.items() if k != "failures"},
                  baseline=f"{baseline}, and the top-1 target with the cheapest route to it, on the same memory",
                  notes="No LLM; exploration memory only (no gold demonstration in it).")


def gap_line(result: dict) -> str:
    """Leave-one-app-out against the defaults, in points of exact (what a constant or rule chosen on the other
    apps loses on the held-out one); empty when leave-one-app-out did not run."""
    default = result["planner"]["all"]["exact"]
    parts = [f"{name} {100 * (result[key]['exact'] - default):+.1f} points" for key, name in
             (("loao", "constants"), ("loao_ranking", "the ranking's constants (RANKING_GRID)"),
              ("rules", "rule switches")) if key in result]
    return f"\nExact, leave-one-app-out minus the defaults: {', '.join(parts)}.\n" if parts else ""


def line(name: str, s: dict) -> str:
    rrr = f"{s['rrr']:.2f}" if s["rrr"] is not None else "-"
    return f"{name:<12} {s['tasks']:>5} {s['exact']:>7.1%} {s['success']:>8.1%} {rrr:>5} {s['unasked']:>8} {s['target']:>7.1%}"


HEAD = f"{'app':<12} {'tasks':>5} {'exact':>7} {'lenient':>8} {'rrr':>5} {'unasked':>8} {'target':>7}"


def report(result: dict, default: PlannerConfig) -> None:
    blocks = [("commit", f"baseline: commit {result['commit']['rev']}'s planner (its own bench's plans)")] \
        if "commit" in result else []
    blocks += [("top1", "baseline: top-1 target + cheapest route"), ("planner", "planner (default options)"),
               ("ranker", "planner + learned ranker, leave-one-app-out (trained on the other apps' synthetic tasks)")]
    for which, title in blocks:
        print(f"== {title}")
        print(HEAD + "  failures")
        for app, s in result[which]["apps"].items():
            print(line(app, s) + f"  {s['failures']}")
        print(line("all", result[which]["all"]) + f"  {result[which]['all']['failures']}")
    p = result["planner"]["all"]
    for which in ("commit", "top1"):
        if which in result:
            b = result[which]["all"]
            print(f"planner / {which}: exact {p['exact'] / max(b['exact'], 1e-9):.2f}x, lenient "
                  f"{p['success'] / max(b['success'], 1e-9):.2f}x, unasked {p['unasked']} vs {b['unasked']}")
    lat = result["latency_ms"]
    print(f"latency: p50 {lat['p50']:.1f} ms, p99 {lat['p99']:.1f} ms (top-1 p50 {lat['top1_p50']:.1f} ms)")
    for key, title in (("loao", "constants (each app planned with the constants best on the other five)"),
                       ("loao_ranking", "ranking constants (each app ranked with the values best on the other five)")):
        if key in result:
            lo = result[key]
            print(f"== leave-one-app-out {title}")
            print(HEAD + "  constants")
            for app, s in lo["apps"].items():
                print(line(app, s) + f"  {s['constants']}")
            print(line("all", lo))
    print("== tasks that reach the target but are not lenient successes, by kind (default options)")
    for app, s in [*result["planner"]["apps"].items(), ("all", result["planner"]["all"])]:
        print(f"  {app:<12} {s['after_target']}")
    if "rules" in result:
        rule_report(result["rules"], default)
    if gap := gap_line(result).strip():
        print(gap)
    if "failures" in result:
        failure_report(result["failures"])
    o = result["official"]
    print(f"shared scorer (default options): exact {o['exact_rate']:.1%}, lenient {o['success_rate']:.1%}, "
          f"target {o['target_rate']:.1%}, rrr {o['mean_rrr_on_success']}, llm calls {o['llm_calls']}")


if __name__ == "__main__":
    sys.exit(main())
