"""Benchmark: can the exploration memory find each DroidTask gold target from the task text alone?

Memory: AutoDroid's exploration (utg.yaml) of the six shared apps, summarised
deterministically (no LLM); no gold demonstration is in it. For every gold
task, the elements of its app are ranked as the planner ranks them
(semantic/ranking.py, the one element scorer, over the planner's index: the
app's elements and what the other apps' look-alike screens lend it, agent/crowd.py). Headline figures are STRICT: a hit is the exact gold
target, i.e. the memory element on the gold step's screen (the gold state
located in memory by agent/locate.py) with the gold view's structural key.
The lenient figure beside it counts any element whose text, content
description or label equals the gold label (as ../shared/eval/droidtask_score.py
compares them): an OK or Save on any screen counts, so it flatters.
Reported per app: R@1, R@5, and the ceiling (held: the share of gold targets
the exploration memory holds at all); each of the ranking's lifts measured off;
and leave-one-app-out: each app ranked with the ranking's options (RANKING_GRID)
best on the other five apps by strict R@1, then strict R@5 (the defaults on
ties), with the gap to the defaults.
Also embedding throughput (texts/s) on the elements' simulated tasks.

    .venv/bin/python -m appmem.bench.retrieval [--home DIR] [--misses] [--json]
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import sys
import time
from dataclasses import replace
from pathlib import Path


from appmem.bench.common import (DROIDTASK, DROIDTASK_APPS as APPS, exploration_memory, load_scorer, markdown_table,
                                  options_changed, private_stack, write_results)

from appmem.agent.appgraph import AppGraph
from appmem.agent.planner import Planner
from appmem.agent.locate import locate, state_from_html
from appmem.graph.clients import open_graph
from appmem.graph.screens import elements_of, screen_of
from appmem.graph.store import element_of
from appmem.graph.vocabulary import BACK_WORDS, CONFIRM_WORDS, head, id_words, label_of
from appmem.semantic.meaning import PARTS, describe, meaning
from appmem.semantic.pipeline import load_contexts
from appmem.semantic.ranker import Ranker
from appmem.planconfig import RankingConfig
from appmem.semantic.lexical import terms
from appmem.semantic.ranking import ElementIndex
from appmem.semantic.training import KIND, SEED, app_examples, fit_on
from appmem.semantic.embedder import Embedder
from appmem.semantic.vectors import VectorStore, open_qdrant

K = 5


def labels_of(scorer, row: dict) -> set[str]:
    """An element's names as the shared scorer compares them: text, content description, label."""
    out = {scorer.norm(row.get(key)) for key in ("text", "content_desc", "label")}
    out.discard("")
    return out


def gold_elements(store, graph, package: str, task: dict, scorer) -> set[str]:
    """The memory's ids of the exact gold target: the last gold step's state is located in the app's
    memory (agent/locate.py: exact signature, else the most similar screen) and, on that screen, the
    element with the gold view's structural key and the gold label; else the one with the gold label;
    else the key's element when its own name cannot disagree (no label: a field's text is
    content; or a label cut short). The screen's elements include the confirms look-alike screens of other
    apps lend it (agent/crowd.py), when `graph` was loaded with them. A
    key alone is not identity: in a list whose rows moved, or on a similar screen, the same key holds
    another control (the key of "Clock" in a launcher's list held "Calendar"). Empty when the memory
    does not hold the screen or the element on it: a strict miss."""
    last = [st for st in task["profile"] if st["label"][0] is not None and int(st["label"][0]) >= 0][-1]
    state = state_from_html(last["state"], package)
    found = locate(store, package, state, graph)
    if not found["screen_id"]:
        return set()
    view = int(last["label"][0])
    mine = elements_of(state, screen_of(state, package, "")).get(view)
    on_screen = graph.screen_elements(found["screen_id"]) + graph.lent.get(found["screen_id"], [])
    gold = scorer.gold_steps(task)[-1]["labels"]
    names = {e.id: labels_of(scorer, {"text": e.text, "content_desc": e.content_desc, "label": label_of(e)})
             for e in on_screen}
    same = [e for e in on_screen if mine is not None and e.key == mine.key]
    named = {e.id for e in same if names[e.id] & gold} or {e.id for e in on_screen if names[e.id] & gold}
    return named or {e.id for e in same if not label_of(e) or any(cut(n, g) for n in names[e.id] for g in gold)}


def cut(name: str, gold: str) -> bool:
    """`name` is `gold` shortened (a label the memory stored cut, with its line breaks as ' / ')."""
    def letters(s):
        return "".join(c for c in s if c.isalnum())
    return len(letters(name)) >= 8 and letters(gold).startswith(letters(name))


def prepare(store, embedder: Embedder, scorer, packages: dict[str, str], apps=APPS, graph_of=None) -> dict:
    """Per app: its gold tasks (embedded), each with its strict gold ids and gold labels, and the
    names of every element of the app (for the lenient count). `graph_of(package)`: the app's graph the
    gold is located in (the planner's, with what look-alikes lend it); else the app's own."""
    out = {}
    for app in apps:
        package = packages[app]
        graph = graph_of(package) if graph_of else AppGraph.load(store, [package])
        known, element_labels, unnamed = set(), {}, set()
        screens = [r["id"] for r in store.read("planner_app_screens", packages=[package])]
        elements = [element_of(row) for row in store.elements(screen_ids=screens)]
        for element in elements + [e for lent in graph.lent.values() for e in lent]:
            element_labels[element.id] = labels_of(scorer, {"text": element.text, "content_desc": element.content_desc,
                                                            "label": label_of(element)})
            known |= element_labels[element.id]
            if label_of(element) in ("", id_words(element.resource_id)):
                unnamed.add(element.id)  # no label, or only its resource id's words (an icon)
        tasks = [t for t in json.loads((DROIDTASK / app / "tasks.json").read_text()) if scorer.gold_steps(t)]
        vecs = embedder.embed([t["task"] for t in tasks])
        rows = [(t, v, gold_elements(store, graph, package, t, scorer), scorer.gold_steps(t)[-1]["labels"])
                for t, v in zip(tasks, vecs)]
        out[app] = {"package": package, "rows": rows, "labels": element_labels, "known": known, "unnamed": unnamed}
    return out


MISS_KINDS = ("absent", "wrong screen", "unnamed", "final confirm", "goal unsaid", "look-alikes")


def miss_kind(p: dict, first: dict, text: str, exact: set[str], lenient: list[int]) -> str:
    """Why a strict miss missed, the first that applies: the memory does not hold the gold element
    (absent); an element with its label on another screen is in the top K (wrong screen); the gold
    element has no label or only its resource id's words (unnamed); it is a confirm (OK, Save, Yes)
    that finishes what the task names (final confirm); its texts share no word with the task (goal
    unsaid); else they do, and other elements rank above it (look-alikes)."""
    if not exact:
        return "absent"
    if lenient:
        return "wrong screen"
    if exact & p["unnamed"]:
        return "unnamed"
    rows = [first[i] for i in exact if i in first]
    if any(head(str(r.get("label") or "")).lower() in CONFIRM_WORDS for r in rows):
        return "final confirm"
    if not any(set(terms(text)) & set(r.get("terms") or ()) for r in rows):
        return "goal unsaid"
    return "look-alikes"


def evaluate(prepared: dict, index_of, misses: bool = False, config: RankingConfig | None = None) -> dict:
    """Strict hits (the exact gold element on its screen) and lenient ones (any element whose
    text equals the gold label: an OK or Save anywhere counts), at 1 and K, per app; ranked with
    `config` (None: each index's own options)."""
    per_app = {}
    for app, p in prepared.items():
        index = index_of(p["package"])
        first = {index.payloads[r].get("element_id"): index.payloads[r] for r in index.starts.tolist()}
        counts = dict.fromkeys(("strict_1", "strict_5", "lenient_1", "lenient_5", "held", "held_lenient"), 0)
        kinds = dict.fromkeys(MISS_KINDS, 0)
        for task, vec, exact, gold in p["rows"]:
            hits = index.search(vec, task["task"], K, config)
            ids = [h.payload.get("element_id") for h in hits]
            lenient = [k for k, i in enumerate(ids) if p["labels"].get(i, set()) & gold]
            strict = [k for k, i in enumerate(ids) if i in exact]
            counts["held"] += bool(exact)
            counts["held_lenient"] += bool(gold & p["known"])
            counts["strict_1"] += bool(strict) and strict[0] == 0
            counts["strict_5"] += bool(strict)
            counts["lenient_1"] += bool(lenient) and lenient[0] == 0
            counts["lenient_5"] += bool(lenient)
            kind = "" if strict else miss_kind(p, first, task["task"], exact, lenient)
            if kind:
                kinds[kind] += 1
            if misses and not (strict and strict[0] == 0):
                print(f"  {app}: {task['task']!r} gold={sorted(gold)} held={bool(exact)} {kind} "
                      f"rank={strict[0] + 1 if strict else '>' + str(K)}; top: "
                      f"{' | '.join(h.payload.get('label', '') for h in hits[:3])}", file=sys.stderr)
        per_app[app] = {"tasks": len(p["rows"]), **counts, "misses": kinds}
    return {"apps": per_app, "overall": rates(per_app)}


def rates(per_app: dict) -> dict:
    """Shares over the apps' tasks (each app's own shares are added beside its counts)."""
    for a in per_app.values():
        n = a["tasks"] or 1
        a.update({f"{key}_rate": a[key] / n for key in ("strict_1", "strict_5", "lenient_1", "lenient_5", "held")})
    n = sum(a["tasks"] for a in per_app.values()) or 1
    out = {"tasks": n, **{f"{key}_rate": sum(a[key] for a in per_app.values()) / n
                          for key in ("strict_1", "strict_5", "lenient_1", "lenient_5", "held")}}
    out["strict_5_of_held"] = sum(a["strict_5"] for a in per_app.values()) / max(1, sum(a["held"] for a in per_app.values()))
    return out


# The ranking's options chosen leave-one-app-out (RankingConfig): its constants of the base score (the weights
# of the task's and of its last clause's word overlap), the share of a choice's label the task must say, and
# the lifts that read the graph's effects.
RANKING_GRID = {"lexical_weight": (0.0, 0.05, 0.1, 0.2, 0.3), "named_share": (1.0, 0.75, 0.6, 0.5),
                "twins": (True, False), "evidence": (True, False), "twin_next": (True, False),
                "goal_weight": (0.0, 0.1, 0.2, 0.3)}


def fold_order(result: dict, held: str) -> tuple[int, int]:
    """How a fold ranks a grid point on the apps other than `held`: strict hits at 1, then at K (lenient never)."""
    rs = [r for app, r in result["apps"].items() if app != held]
    return sum(r["strict_1"] for r in rs), sum(r["strict_5"] for r in rs)


def loao(prepared: dict, index_of, default: RankingConfig) -> dict:
    """Leave-one-app-out over RANKING_GRID (`held_out_choice`), each grid point measured once."""
    results = {values: evaluate(prepared, index_of, config=replace(default, **dict(zip(RANKING_GRID, values))))
               for values in itertools.product(*RANKING_GRID.values())}
    return held_out_choice(results, tuple(getattr(default, name) for name in RANKING_GRID))


def held_out_choice(results: dict, shipped: tuple) -> dict:
    """Each app ranked with the grid point (`results` by its values, each `evaluate`'s result) best on the
    other apps (`fold_order`; on ties the point nearest the shipped values); per app its strict hits, its
    chosen options and the gap to the shipped values' figures (held-out minus defaults, in points), and the
    apps pooled."""
    base = results[shipped]
    held = {}
    for app in base["apps"]:
        chosen = max(results, key=lambda values: (fold_order(results[values], app),
                                                  -options_changed(values, shipped)))
        mine, own = results[chosen]["apps"][app], base["apps"][app]
        held[app] = {**mine, "options": dict(zip(RANKING_GRID, chosen)),
                     "gap_1": 100 * (mine["strict_1_rate"] - own["strict_1_rate"]),
                     "gap_5": 100 * (mine["strict_5_rate"] - own["strict_5_rate"])}
    out = {"apps": held, "overall": rates(held)}
    out["overall"]["gap_1"] = 100 * (out["overall"]["strict_1_rate"] - base["overall"]["strict_1_rate"])
    out["overall"]["gap_5"] = 100 * (out["overall"]["strict_5_rate"] - base["overall"]["strict_5_rate"])
    return out


def loao_table(result: dict) -> None:
    print("== leave-one-app-out over RANKING_GRID (each app ranked with the options best on the other apps by "
          "strict R@1, then R@5): strict figures and the gap to the defaults (points)")
    print(f"{'app':<12} {'strict R@1':>10} {'strict R@5':>10} {'gap R@1':>8} {'gap R@5':>8}  options")
    for app, r in [*result["apps"].items(), ("overall", result["overall"])]:
        options = ", ".join(f"{k}={v}" for k, v in r.get("options", {}).items())
        print(f"{app:<12} {r['strict_1_rate']:>10.1%} {r['strict_5_rate']:>10.1%} {r['gap_1']:>+8.1f} "
              f"{r['gap_5']:>+8.1f}  {options}")


def throughput(store, embedder: Embedder, rounds: int = 2) -> dict:
    """Best of `rounds` passes over every element's simulated task (what `summarize` embeds)."""
    screens = [s["id"] for s in store.read("semantic_screens", packages=None)]
    texts = [r["simulated_task"] for r in store.elements(screen_ids=screens) if r["simulated_task"]]
    best = 0.0
    for _ in range(rounds):
        started = time.perf_counter()
        embedder.embed(texts, cache=False)  # the model itself, not the embedding cache
        best = max(best, len(texts) / (time.perf_counter() - started))
    words = sum(len(t.split()) for t in texts) / max(1, len(texts))
    return {"texts": len(texts), "mean_words": round(words, 1), "texts_per_second": round(best, 1),
            "threads": os.cpu_count()}


def table(result: dict, title: str = "ranking of the planner (semantic/ranking.py)") -> None:
    print(f"== {title}: strict = the exact gold element on its screen; lenient = any element with its label")
    print(f"{'app':<12} {'tasks':>5} {'strict R@1':>10} {'strict R@5':>10} {'lenient R@1':>11} {'lenient R@5':>11} "
          f"{'held':>6}")
    for app, r in [*result["apps"].items(), ("overall", result["overall"])]:
        print(f"{app:<12} {r['tasks']:>5} {r['strict_1_rate']:>10.1%} {r['strict_5_rate']:>10.1%} "
              f"{r['lenient_1_rate']:>11.1%} {r['lenient_5_rate']:>11.1%} {r['held_rate']:>6.1%}")
    print(f"strict R@5 of the targets the memory holds: {result['overall']['strict_5_of_held']:.1%}")


ABLATION = {"label": ("label",), "label+role": ("label", "role"), "label+role+screen": ("label", "role", "screen"),
            "all parts": PARTS, "all - label": ("role", "screen", "effect"), "all - role": ("label", "screen", "effect"),
            "all - screen": ("label", "role", "effect"), "all - effect": ("label", "role", "screen")}


def described(store, embedder: Embedder, package: str, use: tuple[str, ...], cache: dict) -> ElementIndex:
    """An index whose one text per element is its meaning description of the parts in `use`."""
    contexts, _ = load_contexts(store, [package])
    items = [(e, describe(meaning(ctx, e), use)) for ctx in contexts for e in ctx.elements
             if label_of(e).lower() not in BACK_WORDS]
    todo = [t for t in dict.fromkeys(d for _, d in items) if t not in cache]
    cache.update(zip(todo, embedder.embed(todo)))
    rows = [(cache[d], {"element_id": e.id, "terms": terms(d), "label": label_of(e)}) for e, d in items]
    return ElementIndex.from_rows(rows, embedder.dim)


def with_description(base: ElementIndex, extra: ElementIndex) -> ElementIndex:
    """The planner's task rows plus each element's all-parts description row."""
    rows = [(base.matrix[r], base.payloads[r]) for r in range(len(base.payloads))]
    first = {base.payloads[r].get("element_id"): base.payloads[r] for r in base.starts.tolist()}
    for r in range(len(extra.payloads)):
        p = first.get(extra.payloads[r]["element_id"])
        if p is not None:
            rows.append((extra.matrix[r], {**p, "terms": sorted(set(p.get("terms") or ()) |
                                                                   set(extra.payloads[r]["terms"]))}))
    return ElementIndex.from_rows(rows, base.matrix.shape[1], base.ranker)


def ablation(store, embedder: Embedder, prepared: dict, bases: dict) -> dict:
    """Strict R@5 per app of: the planner's texts; each meaning description alone; both."""
    cache: dict = {}
    out = {"planner texts": evaluate(prepared, lambda p: bases[p])}
    for name, use in ABLATION.items():
        out[f"meaning: {name}"] = evaluate(prepared, lambda p, u=use: described(store, embedder, p, u, cache))
    out["planner texts + meaning (all)"] = evaluate(
        prepared, lambda p: with_description(bases[p], described(store, embedder, p, PARTS, cache)))
    return out


def held_out(prepared: dict, bases: dict, examples: dict, trained_on, kind: str = KIND) -> dict:
    """Each app ranked by a ranker trained on the synthetic tasks of `trained_on(app)` only."""
    models = {}
    for app, p in prepared.items():
        models[p["package"]] = Ranker(fit_on([examples[a] for a in trained_on(app)], kind, SEED))
    def index_of(package):
        index = bases[package]
        index.ranker = models[package]
        return index
    try:
        return evaluate(prepared, index_of)
    finally:
        for index in bases.values():
            index.ranker = None


DRAWS = 2


def learning_curve(prepared: dict, bases: dict, examples: dict, subsets: int = DRAWS) -> list[dict]:
    """Strict R@5 on each held-out app against the number of other apps the ranker trained on
    (up to `subsets` seeded draws of the training apps per size, task-weighted mean)."""
    rng = random.Random(SEED)
    curve = []
    for n in range(1, len(prepared)):
        hits = lenient = tasks = 0
        for draw in range(subsets):
            picks = {app: sorted(rng.sample([a for a in prepared if a != app], n)) for app in prepared}
            r = held_out(prepared, bases, examples, lambda app: picks[app], KIND)
            hits += sum(a["strict_5"] for a in r["apps"].values())
            lenient += sum(a["lenient_5"] for a in r["apps"].values())
            tasks += r["overall"]["tasks"]
        curve.append({"training_apps": n, "strict_5_rate": hits / tasks, "lenient_5_rate": lenient / tasks})
    return curve


STARTED = time.perf_counter()


def say(args, show, *what) -> None:
    """Print a section as soon as it is measured (the whole run takes minutes); not with --json."""
    if not args.json:
        show(*what)
        sys.stdout.flush()


def ablation_table(ablation: dict) -> None:
    print("== ablation: strict R@5 per app (meaning = one description text per element of those parts)")
    print(f"{'ranking':<32}" + "".join(f"{a[:8]:>9}" for a in APPS) + f"{'all':>8}")
    for name, r in ablation.items():
        print(f"{name:<32}" + "".join(f"{r['apps'][a]['strict_5_rate']:>9.1%}" for a in APPS) +
              f"{r['overall']['strict_5_rate']:>8.1%}")


def miss_table(result: dict) -> None:
    print(f"== why the strict R@{K} misses miss (bench/retrieval.py miss_kind), per app")
    print(f"{'kind':<14}" + "".join(f"{a[:8]:>9}" for a in APPS) + f"{'all':>6}")
    for kind in MISS_KINDS:
        row = [result["apps"][a]["misses"][kind] for a in APPS]
        print(f"{kind:<14}" + "".join(f"{n:>9}" for n in row) + f"{sum(row):>6}")


def curve_table(curve: list[dict]) -> None:
    print(f"== learning curve: strict R@5 on held-out apps vs number of training apps ({KIND}, {DRAWS} draws each)")
    for c in curve:
        print(f"  {c['training_apps']} apps: strict R@5 {c['strict_5_rate']:.1%} (lenient {c['lenient_5_rate']:.1%})")


def progress(what: str) -> None:
    print(f"[{time.perf_counter() - STARTED:6.0f} s] {what} done", file=sys.stderr, flush=True)


LIFTS = (("no_twins", "without twins' effects"), ("no_twin_next", "without twins ranked together"),
         ("no_goal", "without the last clause's weight"), ("no_evidence", "without the confirm evidence"),
         ("no_named", "without named"), ("no_dialogs", "without dialogs"), ("no_follow", "no lifts at all"))


def write_retrieval_results(result: dict) -> None:
    """The docs' table: strict and lenient recall per app for the planner's ranking, beside the same run's
    ranking without the lifts (cosine + lexical overlap only) and, when they ran, the learned rankers."""
    base, plain, held = result["base"], result["no_follow"], result["loao"]
    rows = []
    for app, r in [*base["apps"].items(), ("overall", base["overall"])]:
        p = plain["apps"][app] if app != "overall" else plain["overall"]
        h = held["apps"][app] if app != "overall" else held["overall"]
        rows.append([f"**{app}**" if app == "overall" else app, r["tasks"], f"{r['strict_1_rate']:.1%}",
                     f"{r['strict_5_rate']:.1%}", f"{h['strict_1_rate']:.1%}", f"{h['strict_5_rate']:.1%}",
                     f"{r['lenient_5_rate']:.1%}", f"{r['held_rate']:.1%}",
                     f"{p['strict_1_rate']:.1%}", f"{p['strict_5_rate']:.1%}"])
    table = markdown_table(["app", "tasks", "strict R@1", "strict R@5", "strict R@1, leave-one-app-out",
                            "strict R@5, leave-one-app-out", "lenient R@5", "gold held in memory",
                            "baseline strict R@1", "baseline strict R@5"], rows)
    table += (f"\nStrict R@5 of the targets the memory holds: {base['overall']['strict_5_of_held']:.1%}. "
              f"Leave-one-app-out (the ranking's options, RANKING_GRID, chosen on the other apps by strict R@1 "
              f"then R@5) minus the defaults: R@1 {held['overall']['gap_1']:+.1f} points, "
              f"R@5 {held['overall']['gap_5']:+.1f} points.\n\n")
    lifts = [("defaults", base), *((title, result[key]) for key, title in LIFTS if key in result)]
    table += "Each lift of the graph off (strict R@1 / R@5 per app):\n\n" + markdown_table(
        ["ranking", *base["apps"], "overall"],
        [[title, *(f"{r['apps'][a]['strict_1_rate']:.0%} / {r['apps'][a]['strict_5_rate']:.0%}" for a in base["apps"]),
          f"{r['overall']['strict_1_rate']:.1%} / {r['overall']['strict_5_rate']:.1%}"] for title, r in lifts]) + "\n"
    for kind, r in result.get("ranker", {}).items():
        table += (f"Learned ranker ({kind}), leave-one-app-out: strict R@5 {r['overall']['strict_5_rate']:.1%}, "
                  f"R@1 {r['overall']['strict_1_rate']:.1%}.\n")
    e = result["embedding"]
    table += f"Embedding: {e['texts_per_second']} texts/s ({e['texts']} texts of {e['mean_words']} words).\n"
    write_results("retrieval", table, result, "cosine + lexical overlap only (the ranking without its lifts)",
                  "Gold DroidTask targets ranked in the exploration memory only (no gold demonstration), no LLM. "
                  "Strict: the exact gold element on its screen; lenient: any element with its label.")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, help="reuse (or build) the memory in this folder")
    parser.add_argument("--misses", action="store_true", help="print every task whose target is not the top hit")
    parser.add_argument("--quick", action="store_true", help="the planner's ranking only (no ablation, no ranker)")
    parser.add_argument("--no-ablation", action="store_true", help="skip the meaning-parts ablation")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    scorer = load_scorer()
    with private_stack(args.home) as settings:
        store = open_graph(settings)
        client = open_qdrant(settings)
        try:
            embedder = Embedder(settings.home, model=settings.embed_model)
            vectors = VectorStore(client, embedder.dim)
            vectors.claim_model(settings.embed_model)  # a --home built with another model: refused, not mixed
            packages = exploration_memory(store, vectors, embedder, settings)
            progress("memory")
            # the planner's graphs and element indexes: each app's own memory and the confirms look-alike screens
            # of the other apps lend it (agent/crowd.py); no learned ranker
            planner = Planner(store, vectors, embedder, config=settings.planner)
            prepared = prepare(store, embedder, scorer, packages, graph_of=lambda p: planner.graph([p]))
            bases = {p: planner.index([p]) for p in packages.values()}
            for index in bases.values():
                index.ranker = None
            default = settings.planner.ranking
            variants = (  # the same run without some lifts (a confirm ranked by its own words only)
                ("no_follow", replace(default, named=False, follow=False, commit=False, twin_next=False, goal_weight=0.0),
                 "ranking without `named` and stages 3 and 4 (cosine + lexical overlap only)"),
                ("no_commit", replace(default, named=False, commit=False),
                 "ranking with stage 3 only (a confirm precedes its opener)"),
                ("no_named", replace(default, named=False),
                 "stages 3 and 4 without `named` (a choice the task names precedes its opener)"),
                ("commit_fields", replace(default, entries=("input",)),
                 "stage 4 with fields only as entries (not the default)"),
                ("no_dialogs", replace(default, dialogs=False), "stage 4 without the entries of the dialogs a form opens"),
                ("no_twins", replace(default, twins=False),
                 "without `twins` (an element opens only what it was itself seen to open)"),
                ("no_goal", replace(default, goal_weight=0.0),
                 "without the last clause's overlap (a task of several steps read as one)"),
                ("no_twin_next", replace(default, twin_next=False),
                 "without `twin_next` (a control ranks by its own texts only, not after its best twin)"),
                ("no_evidence", replace(default, evidence=False),
                 "without `evidence` (stage 4 lifts every confirm; no choice closes its screen)"))
            result = {}
            for name, config, title in variants:
                result[name] = evaluate(prepared, lambda p: bases[p], config=config)
                say(args, table, result[name], title)
            result["base"] = evaluate(prepared, lambda p: bases[p], args.misses)
            progress("base ranking")
            say(args, table, result["base"], "the planner's ranking (cosine + lexical overlap; a choice the task "
                "names, then a confirm, precede what opens them, and a confirm its form's best entry; no learned ranker)")
            say(args, miss_table, result["base"])
            result["loao"] = loao(prepared, lambda p: bases[p], default)
            progress("leave-one-app-out options")
            say(args, loao_table, result["loao"])
            if not args.quick:
                if not args.no_ablation:
                    result["ablation"] = ablation(store, embedder, prepared, bases)
                    progress("ablation")
                    say(args, ablation_table, result["ablation"])
                started = time.perf_counter()
                examples = {app: app_examples(store, vectors, embedder, packages[app]) for app in APPS}
                result["examples"] = {app: {"synthetic_tasks": e[2], "rows": int(len(e[1]))}
                                      for app, e in examples.items()}
                result["examples_seconds"] = round(time.perf_counter() - started, 1)
                progress("synthetic tasks")
                others = lambda app: [a for a in APPS if a != app]  # noqa: E731
                say(args, print, f"synthetic tasks per app: {result['examples']} ({result['examples_seconds']} s)")
                result["ranker"] = {}
                for kind in ("gbm", "logistic", "pairwise"):
                    result["ranker"][kind] = held_out(prepared, bases, examples, others, kind)
                    progress(f"leave-one-app-out {kind} ranker")
                    say(args, table, result["ranker"][kind], f"learned ranker ({kind}), leave-one-app-out: trained "
                        "on the other apps' synthetic tasks only")
                result["curve"] = learning_curve(prepared, bases, examples)
                progress("learning curve")
                say(args, curve_table, result["curve"])
            result["embedding"] = throughput(store, embedder)
        finally:
            client.close()
            store.driver.close()
    write_retrieval_results(result)
    if args.json:
        print(json.dumps(result, indent=2, default=str))
        return 0
    e = result["embedding"]
    print(f"embedding: {e['texts_per_second']} texts/s ({e['texts']} simulated tasks of {e['mean_words']} words, "
          f"{e['threads']} threads; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
