"""Benchmark: can the exploration memory find each DroidTask gold target from the task text alone?

Memory: AutoDroid's exploration (utg.yaml) of the six shared apps, summarised
deterministically (no LLM); no gold demonstration is in it. For every gold
task, the elements of its app are ranked as the planner ranks them
(agent/index.py = semantic.ranking.search_elements: cosine plus IDF-weighted
lexical overlap), and a hit is an element whose text, content description or
label equals the gold target's label (the last gold step's element, compared
as ../shared/eval/droidtask_score.py compares them). Reported per app:
Recall@1, Recall@5, and the ceiling: the share of gold targets that the
exploration memory holds at all (a target it never saw cannot be retrieved).
Also embedding throughput (texts/s) on the elements' simulated tasks.

Earlier figures in the README (Recall@5 81.8 %) had the gold demonstrations in
memory; these do not.

    .venv/bin/python bench/retrieval.py [--home DIR] [--misses] [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import DROIDTASK, DROIDTASK_APPS as APPS, exploration_memory, load_scorer, private_stack  # noqa: E402

from agent.index import ElementIndex  # noqa: E402
from graph.clients import open_graph  # noqa: E402
from graph.store import element_of  # noqa: E402
from graph.vocabulary import label_of  # noqa: E402
from semantic.embedder import Embedder  # noqa: E402
from semantic.vectors import VectorStore, open_qdrant  # noqa: E402

K = 5


def labels_of(scorer, row: dict) -> set[str]:
    """An element's names as the shared scorer compares them: text, content description, label."""
    out = {scorer.norm(row.get(key)) for key in ("text", "content_desc", "label")}
    out.discard("")
    return out


def evaluate(store, index_of, embedder: Embedder, scorer, packages: dict[str, str], misses: bool) -> dict:
    per_app = {}
    for app in APPS:
        package = packages[app]
        index = index_of(package)
        known, element_labels = set(), {}
        screens = [r["id"] for r in store.read("planner_app_screens", packages=[package])]
        for row in store.elements(screen_ids=screens):
            element_labels[row["id"]] = labels_of(scorer, {**row, "label": label_of(element_of(row))})
            known |= element_labels[row["id"]]
        tasks = [t for t in json.loads((DROIDTASK / app / "tasks.json").read_text()) if scorer.gold_steps(t)]
        vecs = embedder.embed([t["task"] for t in tasks])
        hit1 = hit5 = held = 0
        for task, vec in zip(tasks, vecs):
            gold = scorer.gold_steps(task)[-1]["labels"]
            hits = index.search(vec, task["task"], K)
            ranks = [k for k, h in enumerate(hits) if element_labels.get(h.payload.get("element_id"), set()) & gold]
            ids_text = [h.payload.get("label", "") for h in hits]
            held += bool(gold & known)
            hit1 += bool(ranks) and ranks[0] == 0
            hit5 += bool(ranks)
            if misses and not (ranks and ranks[0] == 0):
                print(f"  {app}: {task['task']!r} gold={sorted(gold)} in memory={bool(gold & known)} "
                      f"rank={ranks[0] + 1 if ranks else '>' + str(K)}; top: {' | '.join(ids_text[:3])}",
                      file=sys.stderr)
        n = len(tasks) or 1
        per_app[app] = {"tasks": len(tasks), "recall_at_1": hit1 / n, "recall_at_5": hit5 / n,
                        "in_memory": held / n, "hits_1": hit1, "hits_5": hit5, "held": held}
    n = sum(a["tasks"] for a in per_app.values())
    overall = {"tasks": n, **{key: sum(a[count] for a in per_app.values()) / n
                              for key, count in (("recall_at_1", "hits_1"), ("recall_at_5", "hits_5"),
                                                 ("in_memory", "held"))}}
    held_tasks = sum(a["held"] for a in per_app.values())
    overall["recall_at_5_of_held"] = sum(a["hits_5"] for a in per_app.values()) / max(1, held_tasks)
    return {"apps": per_app, "overall": overall}


def throughput(store, embedder: Embedder, rounds: int = 2) -> dict:
    """Best of `rounds` passes over every element's simulated task (what `summarize` embeds)."""
    screens = [s["id"] for s in store.read("semantic_screens", packages=None)]
    texts = [r["simulated_task"] for r in store.elements(screen_ids=screens) if r["simulated_task"]]
    best = 0.0
    for _ in range(rounds):
        started = time.perf_counter()
        embedder.embed(texts)
        best = max(best, len(texts) / (time.perf_counter() - started))
    words = sum(len(t.split()) for t in texts) / max(1, len(texts))
    return {"texts": len(texts), "mean_words": round(words, 1), "texts_per_second": round(best, 1),
            "threads": os.cpu_count()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, help="reuse (or build) the memory in this folder")
    parser.add_argument("--misses", action="store_true", help="print every task whose target is not the top hit")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    scorer = load_scorer()
    with private_stack(args.home) as settings:
        store = open_graph(settings)
        client = open_qdrant(settings)
        try:
            embedder = Embedder(settings.home)
            vectors = VectorStore(client, embedder.dim)
            packages = exploration_memory(store, vectors, embedder, settings)
            result = evaluate(store, lambda p: ElementIndex.load(vectors, [p]), embedder, scorer, packages,
                              args.misses)
            result["embedding"] = throughput(store, embedder)
        finally:
            client.close()
            store.driver.close()
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{'app':<12} {'tasks':>5} {'R@1':>6} {'R@5':>6} {'in memory':>10}")
    for app, r in [*result["apps"].items(), ("overall", result["overall"])]:
        print(f"{app:<12} {r['tasks']:>5} {r['recall_at_1']:>6.1%} {r['recall_at_5']:>6.1%} {r['in_memory']:>10.1%}")
    print(f"Recall@5 of the targets the memory holds: {result['overall']['recall_at_5_of_held']:.1%}")
    e = result["embedding"]
    print(f"embedding: {e['texts_per_second']} texts/s ({e['texts']} simulated tasks of {e['mean_words']} words, "
          f"{e['threads']} threads)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
