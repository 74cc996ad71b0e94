"""Training the element ranker on the memory: synthetic tasks per app → feature rows → a model.

`app_examples` gives one app's rows (bench/retrieval.py trains leave-one-app-out
from them); `train` fits over every app in memory and writes the model and its
provenance to <home>/ranker/ (`appmem ranker train`, and `appmem summarize`
after it changed the memory).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from appmem.graph.store import GraphStore
from appmem.semantic.embedder import Embedder
from appmem.semantic.pipeline import load_contexts
from appmem.semantic.ranker import Ranker, examples, fit, provenance
from appmem.semantic.ranking import ElementIndex
from appmem.semantic.synthetic import tasks_of_app
from appmem.semantic.vectors import VectorStore

SEED = 0
KIND = "logistic"  # bench/retrieval.py, leave-one-app-out strict R@5: logistic 59.7 %, gbm 55.8 %


def app_examples(store: GraphStore, vectors: VectorStore, embedder: Embedder, package: str,
                 seed: int = SEED) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
    """One app's training rows from its own synthetic tasks, how many tasks made them, and each
    row's task number."""
    contexts, _ = load_contexts(store, [package])
    tasks = tasks_of_app(contexts, seed)
    if not tasks:
        return np.zeros((0, 0), np.float32), np.zeros(0, np.int8), 0, np.zeros(0, np.int64)
    index = ElementIndex.load(vectors, [package])
    x, y, groups = examples(index, embedder.embed([t.text for t in tasks]), tasks)
    return x, y, len(tasks), groups


def fit_on(apps: list[tuple], kind: str = KIND, seed: int = SEED):
    """A model fitted on several apps' `app_examples` (task numbers kept apart per app)."""
    offsets = np.cumsum([0] + [len(a[1]) for a in apps])
    return fit(np.vstack([a[0] for a in apps]), np.concatenate([a[1] for a in apps]), kind, seed,
               np.concatenate([a[3] + offset for a, offset in zip(apps, offsets)]))


def train(store: GraphStore, vectors: VectorStore, embedder: Embedder, home: Path, packages: list[str] | None = None,
          seed: int = SEED, kind: str = KIND) -> dict:
    """Fit the ranker over the apps of `packages` (every summarised app when None) and save it."""
    packages = packages or [r["package"] for r in store.read("semantic_packages")]
    apps, counts = [], {}
    for package in sorted(packages):
        got = app_examples(store, vectors, embedder, package, seed)
        if got[2] and len(got[1]):
            apps.append(got)
            counts[package] = got[2]
    if not apps or len({int(v) for a in apps for v in a[1]}) < 2:
        return {"trained": False, "reason": "no synthetic task with a known answer in memory", "apps": counts}
    rows = sum(len(a[1]) for a in apps)
    ranker = Ranker(fit_on(apps, kind, seed), provenance(counts, rows, kind, seed))
    ranker.save(Path(home) / "ranker")
    return {"trained": True, **ranker.provenance}
