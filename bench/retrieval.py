"""Benchmark: can the element memory find each DroidTask gold target from the task text alone?

For every gold task of the six shared DroidTask apps: search the `elements`
collection with the task description, within its app, ranked as `appmem search`
ranks (semantic/ranking.py: cosine plus a fixed-weight lexical overlap), and
check whether the gold target (the element of the task's last gold step, i.e.
the last STEP with label[0] >= 0) is the top hit (Recall@1) or among the top
five (Recall@5).
Summaries are the deterministic ones (no LLM); task descriptions never enter
the element texts. Also measures embedding throughput (texts/s) on the
elements' simulated tasks.

Runs on a private embedded stack (temporary home, free ports): ingest the six
apps with the same code as `appmem ingest autodroid`, then `summarize`.

    .venv/bin/python bench/retrieval.py [--k 5] [--misses] [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import DROIDTASK, DROIDTASK_APPS as APPS, private_stack  # noqa: E402  (repository first on sys.path)

from appmem.clients import open_graph  # noqa: E402
from ingest.autodroid import package_of, read_autodroid  # noqa: E402
from ingest.pipeline import ingest_tasks, ingest_trace  # noqa: E402
from semantic.embedder import Embedder  # noqa: E402
from semantic.pipeline import summarize  # noqa: E402
from semantic.ranking import search_elements  # noqa: E402
from semantic.summaries import DeterministicSummarizer  # noqa: E402
from semantic.vectors import VectorStore, open_qdrant  # noqa: E402


def evaluate(store, vectors: VectorStore, embedder: Embedder, k: int, misses: bool) -> dict:
    per_app = {}
    for app in APPS:
        package = package_of(app)
        tasks = [t for t in store.read("semantic_tasks", packages=[package]) if t["steps"]]
        queries = [t["description"] for t in tasks]
        vecs = embedder.embed(queries)
        hit1 = hit5 = 0
        for task, vec in zip(tasks, vecs):
            gold = max(task["steps"], key=lambda s: s["index"])["element_id"]
            hits = search_elements(vectors, vec, task["description"], k, [package])
            ids = [h.payload.get("element_id") for h in hits]
            hit1 += bool(ids) and ids[0] == gold
            hit5 += gold in ids
            if misses and (not ids or ids[0] != gold):
                print(f"  {app}: {task['description']!r}\n    gold={gold} rank="
                      f"{ids.index(gold) + 1 if gold in ids else '>' + str(k)}; top: "
                      + " | ".join(h.payload.get("text", "") for h in hits[:3]), file=sys.stderr)
        per_app[app] = {"tasks": len(tasks), "recall_at_1": hit1 / len(tasks) if tasks else 0.0,
                        f"recall_at_{k}": hit5 / len(tasks) if tasks else 0.0, "hits_1": hit1, f"hits_{k}": hit5}
    n = sum(a["tasks"] for a in per_app.values())
    overall = {"tasks": n, "recall_at_1": sum(a["hits_1"] for a in per_app.values()) / n,
               f"recall_at_{k}": sum(a[f"hits_{k}"] for a in per_app.values()) / n}
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
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--misses", action="store_true", help="print every task whose target is not the top hit")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with private_stack() as settings:
        store = open_graph(settings)
        client = open_qdrant(settings)
        try:
            store.ensure_schema()
            for app in APPS:
                imported = read_autodroid(DROIDTASK / app, app, None)
                for trace in (imported.trace, imported.demo_trace):
                    if trace is not None:
                        ingest_trace(store, trace, settings.ingest_chunk_steps)
                if imported.demo_trace:
                    ingest_tasks(store, imported.tasks, imported.demo_trace)
            embedder = Embedder(settings.home)
            vectors = VectorStore(client, embedder.dim)
            report = summarize(store, vectors, embedder, DeterministicSummarizer(settings.risky_words))
            result = evaluate(store, vectors, embedder, args.k, args.misses)
            result["summarize"] = report.as_dict()
            result["embedding"] = throughput(store, embedder)
        finally:
            client.close()
            store.driver.close()
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    k = args.k
    print(f"{'app':<12} {'tasks':>5} {'R@1':>6} {'R@' + str(k):>6}")
    for app, r in result["apps"].items():
        print(f"{app:<12} {r['tasks']:>5} {r['recall_at_1']:>6.1%} {r[f'recall_at_{k}']:>6.1%}")
    o = result["overall"]
    print(f"{'overall':<12} {o['tasks']:>5} {o['recall_at_1']:>6.1%} {o[f'recall_at_{k}']:>6.1%}")
    e = result["embedding"]
    print(f"embedding: {e['texts_per_second']} texts/s ({e['texts']} simulated tasks of {e['mean_words']} words, "
          f"{e['threads']} threads); "
          f"summarize: {result['summarize']['screens']} screens in {result['summarize']['seconds']}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
