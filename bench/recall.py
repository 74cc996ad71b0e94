"""Benchmark of recall and app choice on the six DroidTask apps (DroidBot's eleven apps as distractors).

THIS BENCHMARK IS ABOUT RECALL: the gold demonstrations of the scored tasks are put
into the memory on purpose (parts 2-4); the honest app-choice figure (part 1) is
measured before they are added.

1. app choice without --app, exploration memory only: the right package for each gold task, from its
   text alone (agent/apps.choose_app; the same-run baseline: the best element's app, no screen counted
   for the app whose entry it is) and from its text with its first screen (the gold HTML state, as
   `appmem plan --screen-html` sends it: agent/apps.app_for_screen)
2. + gold demonstrations: app choice again (recall names the app)
3. recall success: each gold task text re-planned; plans scored by ../shared/eval/droidtask_score.py,
   against the planner without recall on the same memory (the baseline, same run)
4. recall with changed parameters: each gold task whose text states a value its steps type,
   or an item its steps choose, is re-asked with another value from the same app's memory
   (another typed text, another item of the same screen); the plan must carry the new value
   in every step that used the old one
5. the recall threshold, chosen leave-one-app-out: for each app, the cosine threshold that best
   separates right from wrong recalls on the other five apps' task pairs, and its accuracy on the app

    .venv/bin/python -m appmem.bench.recall [--no-distractors]
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict


from appmem.bench.common import (DROIDBOT, DROIDTASK, DROIDTASK_APPS, load_scorer, markdown_table, private_stack,
                                  write_results)

from appmem.agent.apps import app_for_screen, choose_app, rank_packages
from appmem.agent.locate import locate, state_from_html
from appmem.agent.params import align
from appmem.agent.planjson import agent_plan
from appmem.agent.planner import Planner, PlanningError
from appmem.agent.recall import Match, Recall, used_texts
from appmem.graph.clients import open_graph
from appmem.graph.store import element_of
from appmem.ingest.autodroid import read_autodroid
from appmem.ingest.droidbot import read_recording, recording_trace
from appmem.ingest.pipeline import ingest_tasks, ingest_trace
from appmem.formats.privacy import scrub_text
from appmem.semantic.embedder import Embedder
from appmem.semantic.pipeline import summarize
from appmem.semantic.summaries import DeterministicSummarizer
from appmem.semantic.vectors import VectorStore, open_qdrant

scorer = load_scorer()
GRID = [round(0.30 + 0.01 * i, 2) for i in range(70)]


def gold_tasks() -> dict[str, list[dict]]:
    return {app: json.loads((DROIDTASK / app / "tasks.json").read_text()) for app in DROIDTASK_APPS}


def app_choice(recall: Recall, gold: dict[str, list[dict]], packages: dict[str, str]) -> dict[str, tuple[int, int]]:
    out = {}
    for app, tasks in gold.items():
        right = sum((c := choose_app(recall, t["task"])) is not None and c.package == packages[app] for t in tasks)
        out[app] = (right, len(tasks))
    return out


def best_element_choice(recall: Recall, gold: dict[str, list[dict]], packages: dict[str, str]
                        ) -> dict[str, tuple[int, int]]:
    """The baseline: the app of the best elements, every element counting for the app that filed it."""
    index = recall.planner.index(None)
    out = {}
    for app, tasks in gold.items():
        right = sum((r := rank_packages(index, recall.embedder, t["task"])) != [] and r[0][0] == packages[app]
                    for t in tasks)
        out[app] = (right, len(tasks))
    return out


def screen_choice(recall: Recall, gold: dict[str, list[dict]], packages: dict[str, str]) -> dict[str, tuple[int, int]]:
    """App choice from the task and its first screen, an HTML state that names no app."""
    def located(package, state):
        return locate(recall.store, package, state, recall.planner.graph([package]))

    out = {}
    for app, tasks in gold.items():
        right = 0
        for t in tasks:
            html = t["profile"][0]["state"]
            choice = app_for_screen(recall, located, t["task"], lambda package: state_from_html(html, package))
            right += choice is not None and choice.package == packages[app]
        out[app] = (right, len(tasks))
    return out


def print_choice(label: str, result: dict[str, tuple[int, int]]) -> list[str]:
    """Prints one app-choice figure; returns it as a results row (figure, all, per app)."""
    right, total = sum(r for r, _ in result.values()), sum(n for _, n in result.values())
    per_app = ", ".join(f"{app} {r}/{n}" for app, (r, n) in result.items())
    print(f"{label}: right package {right}/{total} = {right / total:.1%} (target ≥ 90%)")
    print("  per app: " + per_app)
    return [label, f"{right}/{total} = {right / total:.1%}", per_app]


def success(task: dict, plan: dict | None) -> bool:
    return bool(plan) and scorer.score_task(task, plan)["success"]


def replan(recall: Recall, planner: Planner, gold, packages) -> list[str]:
    rows = defaultdict(lambda: [0, 0, 0, 0])  # recalled, recall success, baseline success, tasks
    for app, tasks in gold.items():
        for t in tasks:
            plan = recall.recall(t["task"], [packages[app]])
            try:
                base = agent_plan(planner.plan(t["task"], [packages[app]])).model_dump()
            except PlanningError:
                base = None
            r = rows[app]
            r[0] += plan is not None
            r[1] += success(t, agent_plan(plan).model_dump() if plan else base)
            r[2] += success(t, base)
            r[3] += 1
    total = [sum(r[i] for r in rows.values()) for i in range(4)]
    print(f"recall success (gold texts re-planned, gold demonstrations in memory): {total[1] / total[3]:.1%} "
          f"(target ≥ 95%); recalled {total[0]}/{total[3]}; planner without recall, same memory: "
          f"{total[2] / total[3]:.1%} (ratio {total[1] / max(1, total[2]):.2f}x)")
    per_app = ", ".join(f"{a} {r[1]}/{r[3]} (planner {r[2]})" for a, r in rows.items())
    print("  per app: " + per_app)
    return ["3. recall success, gold texts re-planned (baseline: the planner without recall, same memory)",
            f"{total[1]}/{total[3]} = {total[1] / total[3]:.1%}, planner {total[2]}/{total[3]} "
            f"({total[1] / max(1, total[2]):.2f}x)", per_app]


def variants(store, app_package: str, exploration_inputs: list[str]) -> list[dict]:
    """Gold tasks with one parameter changed to another value of the same app's memory: a typed
    text the app's exploration typed, or another item of the same list (an element of the same
    screen whose structural key differs only in its position among its siblings)."""
    out = []
    ids = [r["id"] for r in store.read("task_steps", package=app_package)]
    for row in store.read("recall_tasks", ids=ids):
        text = row["description"]
        typed = [s["input"] for s in row["steps"] if s["input"]] + exploration_inputs
        for step in row["steps"]:
            shown = step["text"] or step["content_desc"] or ""
            old = step["input"] if step["action"] == "input" else shown
            if not old or old.startswith("<") or not re.search(rf"(?<!\w){re.escape(old)}(?!\w)", text, re.I):
                continue
            if step["action"] == "input":
                pool = typed
            else:
                siblings = [element_of(r) for r in store.elements(screen_ids=[step["screen_id"]])]
                prefix = step["key"].rsplit("#", 1)[0]
                pool = [e.label for e in siblings if e.key.rsplit("#", 1)[0] == prefix and e.key != step["key"]]
            new = next((v for v in pool if v and v.lower() != old.lower() and v.lower() not in text.lower()
                        and re.fullmatch(r"[\w .-]{1,40}", v)), None)
            if new:
                changed = re.sub(rf"(?<!\w){re.escape(old)}(?!\w)", lambda _: new, text, flags=re.I)
                used = [j for j, s in enumerate(row["steps"]) if old.lower() in (s["input"] or "").lower()
                        or (s["text"] or s["content_desc"] or "").lower() == old.lower()]
                out.append({"task": changed, "old": old, "new": new, "steps": used, "from": text})
                break
    return out


def changed_parameters(recall: Recall, store, gold, packages) -> list[str]:
    totals = [0, 0, 0]
    parts = []
    for app in gold:
        memory = read_autodroid(DROIDTASK / app, app).trace
        inputs = sorted({s.action.text for s in memory.steps if s.action.text and s.action.type.value == "input"})
        cases = variants(store, packages[app], inputs)
        recalled = carried = 0
        for case in cases:
            plan = recall.recall(case["task"], [packages[app]])
            if plan is None:
                continue
            recalled += 1
            steps = agent_plan(plan).model_dump()["steps"]
            carried += all(j < len(steps) and (case["new"].lower() in (steps[j]["input"] or "").lower() or
                                               case["new"].lower() == ((steps[j]["element"] or {}).get("label") or "").lower())
                           for j in case["steps"])
        totals = [totals[0] + len(cases), totals[1] + recalled, totals[2] + carried]
        parts.append(f"{app} {carried}/{len(cases)}")
    print(f"recall with changed parameters: {totals[0]} variants, recalled {totals[1]}, new value in every step "
          f"that used the old one {totals[2]}/{totals[0]} = {totals[2] / max(1, totals[0]):.1%}")
    print("  per app: " + ", ".join(parts))
    return ["4. recall with changed parameters: the new value in every step that used the old one",
            f"{totals[2]}/{totals[0]} = {totals[2] / max(1, totals[0]):.1%} (recalled {totals[1]})", ", ".join(parts)]


def threshold_loao(recall: Recall, store, gold, packages) -> list[str]:
    """Pairs (stored task A, new text B) of one app whose structure aligns: label = A's adapted
    steps solve B's gold; the threshold is chosen on the other apps."""
    pairs: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    embedder = recall.embedder
    for app, tasks in gold.items():
        rows = {r["description"]: r for r in store.read("recall_tasks", ids=[r["id"] for r in store.read(
            "task_steps", package=packages[app])])}
        texts = [t["task"] for t in tasks]
        vecs = embedder.embed(texts + [scrub_text(t) for t in texts])
        for i, a in enumerate(tasks):
            row = rows.get(scrub_text(a["task"]))
            if row is None:
                continue
            used = used_texts(row)
            for j, b in enumerate(tasks):
                params = align(row["description"], b["task"], used)
                if params is None:
                    continue
                cos = sum(x * y for x, y in zip(vecs[len(texts) + i], vecs[j]))
                plan = recall.adapt(Match(row, cos, params), b["task"])
                pairs[app].append((cos, success(b, agent_plan(plan).model_dump() if plan else None)))

    def accuracy(items, t):
        return sum((cos >= t) == ok for cos, ok in items) / max(1, len(items))

    parts = []
    for app in pairs:
        train = [p for other, items in pairs.items() if other != app for p in items]
        scores = [accuracy(train, t) for t in GRID]
        best = [t for t, s in zip(GRID, scores) if s == max(scores)]
        chosen = best[len(best) // 2]
        parts.append(f"{app} θ={chosen} acc {accuracy(pairs[app], chosen):.0%} on {len(pairs[app])} pairs")
    print("recall threshold, leave-one-app-out: " + "; ".join(parts))
    return ["5. recall threshold, leave-one-app-out", "", "; ".join(parts)]


def run(distractors: bool = True) -> None:
    """Parts 1-5 on a private stack of their own, printed (bench/plan.py calls this too)."""
    gold = gold_tasks()
    print("THIS BENCHMARK IS ABOUT RECALL: the gold demonstrations of the scored tasks are put into the memory "
          "(parts 2-5); part 1 is measured before they are.")
    with private_stack() as settings:
        store = open_graph(settings)
        client = open_qdrant(settings)
        try:
            store.ensure_schema()
            imports = {app: read_autodroid(DROIDTASK / app, app) for app in DROIDTASK_APPS}
            packages = {app: imp.trace.package for app, imp in imports.items()}
            for imp in imports.values():
                ingest_trace(store, imp.trace, settings.ingest_chunk_steps)
            if distractors:
                for folder in sorted(DROIDBOT.iterdir()):
                    ingest_trace(store, recording_trace(read_recording(folder)), settings.ingest_chunk_steps)
            embedder = Embedder(settings.home)
            vectors = VectorStore(client, embedder.dim)
            summarizer = DeterministicSummarizer(settings.risky_words)
            summarize(store, vectors, embedder, summarizer)
            planner = Planner(store, vectors, embedder)
            recall = Recall(store, vectors, embedder, planner)
            rows = [print_choice("1. app choice without --app, exploration memory only, baseline: the best "
                                 "element's app", best_element_choice(recall, gold, packages)),
                    print_choice("1. app choice without --app, exploration memory only, from the task text",
                                 app_choice(recall, gold, packages)),
                    print_choice("1. app choice without --app, exploration memory only, from the task and its "
                                 "first screen (HTML)", screen_choice(recall, gold, packages))]
            for imp in imports.values():
                ingest_trace(store, imp.demo_trace, settings.ingest_chunk_steps)
                ingest_tasks(store, imp.tasks, imp.demo_trace)
            summarize(store, vectors, embedder, summarizer)
            rows.append(print_choice("2. app choice without --app, + gold demonstrations (recall)",
                                     app_choice(recall, gold, packages)))
            rows.append(replan(recall, planner, gold, packages))
            rows.append(changed_parameters(recall, store, gold, packages))
            rows.append(threshold_loao(recall, store, gold, packages))
        finally:
            client.close()
            store.driver.close()
    write_results("recall", markdown_table(["figure", "all", "per app"], rows), rows,
                  "app choice: the best element's app; recall: the planner without recall on the same memory",
                  "ABOUT RECALL: the gold demonstrations of the scored tasks are in the memory on purpose (parts "
                  "2-5); part 1 is measured before they are added. Distractors: "
                  f"{'the DroidBot apps' if distractors else 'none'}.")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-distractors", action="store_true", help="leave DroidBot's eleven apps out")
    run(distractors=not parser.parse_args().no_distractors)
    return 0


if __name__ == "__main__":
    sys.exit(main())
