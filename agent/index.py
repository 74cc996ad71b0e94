"""An app's element vectors in memory: the planner's retrieval without a vector-store round trip per task.

Qdrant's local mode scans and groups in Python on every query (≈100-250 ms for
six apps on the development machine), which alone is over the plan latency
budget. The planner reads the app's element points once (like its UTG, see
agent/appgraph.py) and ranks them exactly as `semantic.ranking.search_elements`
does: cosine, best text per element, the POOL best, then cosine + IDF-weighted
lexical overlap (`rerank`). For an app of up to POOL elements the pool is the
whole app, so document frequencies are computed once at load and the ranking is
vectorised. Same scores as `search_elements` (exact ties may come in another
order), in a few milliseconds.
"""
from __future__ import annotations

import math

import numpy as np

from semantic.ranking import LEXICAL_WEIGHT, POOL, rerank, terms
from semantic.vectors import Hit, VectorStore


class ElementIndex:
    """Rows (one per embedded text) grouped by element: `starts[i]` is element i's first row."""

    def __init__(self, matrix: np.ndarray, payloads: list[dict], starts: np.ndarray):
        self.matrix = matrix
        self.payloads = payloads
        self.starts = starts
        self.docs = [set(payloads[r].get("terms") or ()) for r in starts]
        # Row i belongs to element segment[i]: the best row of each element is found in one sort.
        self.segment = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, len(payloads))))
        # A pool of the whole app (apps of up to POOL elements) has fixed document frequencies.
        self.whole = len(starts) <= POOL
        self.idf = _idf(self.docs) if self.whole else {}
        holders: dict[str, list[int]] = {}  # term → the elements whose texts say it
        for i, doc in enumerate(self.docs if self.whole else ()):
            for t in doc:
                holders.setdefault(t, []).append(i)
        self.holders = {t: np.asarray(ids, dtype=np.int64) for t, ids in holders.items()}

    @classmethod
    def load(cls, vectors: VectorStore, packages: list[str]) -> "ElementIndex":
        """The index of these apps' element points, read from the app's own collection or snapshot only."""
        rows = vectors.points("elements", list(packages))
        rows.sort(key=lambda r: str(r[1].get("element_id") or r[1].get("object_id")))
        keys = [str(p.get("element_id") or p.get("object_id")) for _, p in rows]
        starts = np.asarray([i for i, k in enumerate(keys) if i == 0 or k != keys[i - 1]], dtype=np.int64)
        matrix = np.asarray([v for v, _ in rows], dtype=np.float32).reshape(len(rows), vectors.dim)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return cls(matrix / np.where(norms == 0, 1, norms), [p for _, p in rows], starts)

    def search(self, vector: list[float], text: str, k: int) -> list[Hit]:
        """The k best elements for `text` (embedded as `vector`), each by its best text."""
        if not self.payloads:
            return []
        query = np.asarray(vector, dtype=np.float32)
        scores = self.matrix @ (query / (np.linalg.norm(query) or 1.0))
        best = np.maximum.reduceat(scores, self.starts)
        rows = np.lexsort((-scores, self.segment))[self.starts]  # each element's best row (first of ties)
        if not self.whole:  # a large app: the POOL best by cosine, ranked as search_elements ranks them
            pool = np.argsort(-best)[:POOL]
            hits = [Hit("elements", float(best[i]), self.payloads[rows[i]]) for i in pool]
            return rerank(hits, text, k)
        query_terms = [t for t in terms(text) if t in self.idf]
        norm = sum(self.idf[t] for t in query_terms)
        overlap = np.zeros(len(self.docs))
        for t in query_terms:  # as rerank sums: a term the task says twice counts twice
            overlap[self.holders[t]] += self.idf[t]
        if norm:
            overlap /= norm
        total = best + LEXICAL_WEIGHT * overlap
        top = np.lexsort((-best, -np.round(total, 6)))[:k]  # ties: the better cosine first, as rerank leaves them
        # The stored payloads themselves (shared: read, never changed), without the cosine/overlap
        # breakdown search_elements adds: a plan ranks up to POOL hits and reads only ids and scores.
        return [Hit("elements", t, self.payloads[r]) for t, r in zip(total[top].tolist(), rows[top].tolist())]


def _idf(docs: list[set[str]]) -> dict[str, float]:
    df: dict[str, int] = {}
    for doc in docs:
        for t in doc:
            df[t] = df.get(t, 0) + 1
    return {t: math.log(1 + len(docs) / n) for t, n in df.items()}
