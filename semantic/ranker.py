"""The learned element ranker: re-orders the base ranking's best candidates (semantic/ranking.py).

Features of a (task, element) pair, all from the memory: the base score and
its parts (best task-row cosine, IDF lexical overlap), the cosine and the
lexical overlap of each meaning part (semantic/meaning.py: label, screen,
effect), how much of the label the task says, the element's role, its depth
from the app's entry, how many task texts it has, and its place among the
candidates. The model (scikit-learn, pinned in pyproject.toml) is trained
only on synthetic tasks generated from the memory (semantic/synthetic.py),
never on a benchmark task; `appmem ranker train` builds it over every app in
memory, seeded, and writes its provenance (apps, counts, commit, date) beside
it in <home>/ranker/. A memory that holds more apps trains a better ranker
(bench/retrieval.py prints the learning curve on held-out apps).
"""
from __future__ import annotations

import datetime as dt
import json
import pickle
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from appmem.graph.vocabulary import CONFIRM_WORDS
from appmem.graph.vocabulary import head as head_of
from appmem.semantic.lexical import terms
from appmem.semantic.ranking import PARTS, ElementIndex

ROLES = ("input", "toggle", "tap", "long_tap", "scroll")
FEATURES = ("total", "cosine", "gap", "place", "overlap", *(f"cos_{p}" for p in PARTS),
            *(f"lex_{p}" for p in PARTS), "has_effect", "label_said", "depth", "rows", "confirm",
            *(f"role_{r}" for r in ROLES))
FILE, PROVENANCE = "model.pkl", "provenance.json"


def features(index: ElementIndex, query: np.ndarray, text: str, head: np.ndarray, best: np.ndarray,
             total: np.ndarray) -> np.ndarray:
    """One row of FEATURES per candidate in `head` (element positions, base order)."""
    said = set(terms(text))
    overlap = index.overlap(text)[head]
    cols = [total[head], best[head], total[head] - total[head[0]], np.arange(len(head)) / index.config.rerank, overlap]
    cols += [index.part_cosines(query, p)[head] for p in PARTS]
    cols += [index.overlap(text, p)[head] for p in PARTS]
    label_terms = index.part_terms["label"]
    payloads = [index.payloads[index.starts[i]] for i in head.tolist()]
    cols.append(np.asarray([bool(index.part_terms["effect"][i]) for i in head.tolist()], dtype=float))
    cols.append(np.asarray([len(label_terms[i] & said) / len(label_terms[i]) if label_terms[i] else 0.0
                            for i in head.tolist()]))
    cols.append(np.asarray([float(p.get("depth") or 0) for p in payloads]))
    ends = np.append(index.starts, len(index.payloads))
    cols.append(np.log1p((ends[head + 1] - ends[head]).astype(float)))
    cols.append(np.asarray([head_of(str(p.get("label") or "")).lower() in CONFIRM_WORDS for p in payloads], dtype=float))
    cols += [np.asarray([p.get("role") == r for p in payloads], dtype=float) for r in ROLES]
    return np.column_stack(cols).astype(np.float32)


@dataclass
class Ranker:
    model: object
    provenance: dict = field(default_factory=dict)

    def score(self, index: ElementIndex, query: np.ndarray, text: str, head: np.ndarray, best: np.ndarray,
              total: np.ndarray) -> np.ndarray:
        """The probability that each candidate of `head` is the task's element."""
        return self.model.predict_proba(features(index, query, text, head, best, total))[:, 1]

    def save(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / FILE).write_bytes(pickle.dumps(self.model))
        (folder / PROVENANCE).write_text(json.dumps(self.provenance, indent=1))

    @classmethod
    def load(cls, folder: Path) -> "Ranker | None":
        """The model in `folder` (written by this machine's `appmem ranker train`), or None."""
        if not (folder / FILE).exists():
            return None
        provenance = json.loads((folder / PROVENANCE).read_text()) if (folder / PROVENANCE).exists() else {}
        return cls(pickle.loads((folder / FILE).read_bytes()), provenance)


_installed: dict[tuple[str, float], Ranker | None] = {}


def installed(home: Path | None) -> Ranker | None:
    """The ranker of the memory in `home` (cached until the model file changes), or None."""
    if home is None:
        return None
    path = Path(home) / "ranker" / FILE
    key = (str(path), path.stat().st_mtime if path.exists() else 0.0)
    if key not in _installed:
        _installed[key] = Ranker.load(path.parent)
    return _installed[key]


def examples(index: ElementIndex, vectors: list, tasks: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Feature rows, labels and task numbers of the synthetic `tasks` (embedded as `vectors`) on one
    app's index: the `rerank` best (RankingConfig) by base score (stages 3 and 4 as search applies them) of each task
    whose answer is among them."""
    position = {index.payloads[s].get("element_id"): i for i, s in enumerate(index.starts.tolist())}
    xs, ys, groups = [], [], []
    for task, vector in zip(tasks, vectors):
        answers = {position[a] for a in task.answers if a in position}
        if not answers:
            continue
        query = np.asarray(vector, dtype=np.float32)
        query /= np.linalg.norm(query) or 1.0
        best, _, total, order = index.base(query, task.text)
        head = order[:index.config.rerank]
        labels = np.asarray([i in answers for i in head.tolist()], dtype=np.int8)
        if labels.any():
            xs.append(features(index, query, task.text, head, best, total))
            ys.append(labels)
            groups.append(np.full(len(labels), len(groups), dtype=np.int64))
    if not xs:
        return np.zeros((0, len(FEATURES)), np.float32), np.zeros(0, np.int8), np.zeros(0, np.int64)
    return np.vstack(xs), np.concatenate(ys), np.concatenate(groups)


@dataclass
class Pairwise:
    """A linear score learned from pairs of one task's candidates (right minus wrong): it learns
    which candidate of a task is better, not whether a pair matches across tasks."""

    scale: object  # the features' StandardScaler
    weights: np.ndarray

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        p = 1 / (1 + np.exp(-(self.scale.transform(x) @ self.weights)))
        return np.column_stack([1 - p, p])


def pairs(x: np.ndarray, y: np.ndarray, groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per task: each right candidate minus each wrong one (label 1), and the reverse (label 0)."""
    diffs = []
    for g in np.unique(groups):
        rows = np.flatnonzero(groups == g)
        right, wrong = rows[y[rows] == 1], rows[y[rows] == 0]
        if len(right) and len(wrong):
            diffs.append((x[right][:, None, :] - x[wrong][None, :, :]).reshape(-1, x.shape[1]))
    d = np.vstack(diffs)
    return np.vstack([d, -d]), np.concatenate([np.ones(len(d), np.int8), np.zeros(len(d), np.int8)])


def fit(x: np.ndarray, y: np.ndarray, kind: str = "gbm", seed: int = 0, groups: np.ndarray | None = None):
    """A scorer of (task, element) pairs: gradient-boosted trees or logistic regression (pointwise
    classifiers), or `pairwise`: logistic regression on pairs of one task's candidates (needs groups)."""
    if kind == "pairwise":
        from sklearn.linear_model import LogisticRegression
        from sklearn.preprocessing import StandardScaler

        scale = StandardScaler().fit(x)
        dx, dy = pairs(scale.transform(x), y, groups)
        model = LogisticRegression(max_iter=2000, C=1.0, fit_intercept=False).fit(dx, dy)
        return Pairwise(scale, model.coef_[0].astype(np.float32))
    if kind == "logistic":
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        return make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, C=1.0)).fit(x, y)
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(max_iter=150, learning_rate=0.08, max_leaf_nodes=15,
                                          l2_regularization=1.0, random_state=seed).fit(x, y)


def commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5,
                              cwd=Path(__file__).resolve().parent).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def provenance(apps: dict[str, int], rows: int, kind: str, seed: int) -> dict:
    return {"apps": apps, "synthetic_tasks": sum(apps.values()), "rows": rows, "model": kind, "seed": seed,
            "features": list(FEATURES), "commit": commit(),
            "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "training_data": "synthetic tasks generated from the memory (semantic/synthetic.py) only"}
