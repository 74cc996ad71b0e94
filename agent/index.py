"""An app's element vectors in memory: the planner's retrieval without a vector-store round trip per task.

Qdrant's local mode scans and groups in Python on every query (≈100-250 ms for
six apps on the development machine), which alone is over the plan latency
budget. The planner reads the app's element points once (like its UTG, see
agent/appgraph.py) and ranks them exactly as `semantic.ranking.search_elements`
does: cosine, best text per element, the POOL best, then `rerank` (cosine +
IDF-weighted lexical overlap). Same hits, same order, in under a millisecond.
"""
from __future__ import annotations

import numpy as np

from semantic.ranking import POOL, rerank
from semantic.vectors import Hit, VectorStore

PAGE = 1000


class ElementIndex:
    def __init__(self, matrix: np.ndarray, payloads: list[dict]):
        self.matrix = matrix
        self.payloads = payloads

    @classmethod
    def load(cls, vectors: VectorStore, packages: list[str]) -> "ElementIndex":
        from qdrant_client import models

        vectors.ensure("elements")
        flt = models.Filter(must=[models.FieldCondition(key="package", match=models.MatchAny(any=list(packages)))])
        rows, payloads, offset = [], [], None
        while True:
            points, offset = vectors.client.scroll("elements", scroll_filter=flt, limit=PAGE, offset=offset,
                                                   with_payload=True, with_vectors=True)
            for p in points:
                rows.append(p.vector)
                payloads.append(dict(p.payload or {}))
            if offset is None:
                break
        matrix = np.asarray(rows, dtype=np.float32).reshape(len(rows), vectors.dim)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return cls(matrix / np.where(norms == 0, 1, norms), payloads)

    def search(self, vector: list[float], text: str, k: int) -> list[Hit]:
        if not self.payloads:
            return []
        query = np.asarray(vector, dtype=np.float32)
        scores = self.matrix @ (query / (np.linalg.norm(query) or 1.0))
        best: dict[str, Hit] = {}
        for i in np.argsort(-scores):
            payload = self.payloads[i]
            key = payload.get("element_id") or payload.get("object_id")
            if key not in best:
                best[key] = Hit("elements", float(scores[i]), payload)
                if len(best) >= max(k, POOL):
                    break
        return rerank(list(best.values()), text, k)
