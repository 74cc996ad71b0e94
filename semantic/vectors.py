"""The vector store: Qdrant collections of elements, screens and tasks, with payload filters.

`open_qdrant(settings)` creates the one client of a process: Qdrant's local
mode (`settings.qdrant_path`, embedded, persisted on disk) by default, a server
when `settings.qdrant_url` is set. The caller owns it and injects it into
`VectorStore`; close it with `client.close()`.

Local mode has two limits that shape this module: one process at a time may
open a folder (a second gets ConfigError here), and concurrent writes from
threads of that process fail, so every write goes through `VectorStore`'s lock.
Reads need no lock.

Point ids are UUIDs derived from the element / screen / task id, so upserting
the same thing again replaces it instead of adding a copy.
"""
from __future__ import annotations

import threading
import uuid
import warnings
from dataclasses import dataclass, field
from typing import Any

from qdrant_client import QdrantClient, models

from appmem.errors import ConfigError, TransientError
from appmem.settings import Settings

COLLECTIONS = ("elements", "screens", "tasks")
# Fixed namespace: point ids must be the same in every process and release.
_NAMESPACE = uuid.UUID("6f1c1e36-5f0e-4d8a-9a55-0c2b1f6a7e10")


def point_id(kind: str, object_id: str) -> str:
    return str(uuid.uuid5(_NAMESPACE, f"{kind}:{object_id}"))


def open_qdrant(settings: Settings) -> QdrantClient:
    """The process's Qdrant client (server if QDRANT_URL is set, else local mode)."""
    if settings.qdrant_url:
        return QdrantClient(url=settings.qdrant_url, api_key=settings.qdrant_api_key, timeout=30)
    settings.qdrant_path.mkdir(parents=True, exist_ok=True)
    try:
        return QdrantClient(path=str(settings.qdrant_path))
    except RuntimeError as exc:  # "Storage folder ... is already accessed by another instance"
        raise ConfigError(f"{settings.qdrant_path}: {exc}. Local Qdrant allows one process per folder: "
                          "stop the other appmem process or set QDRANT_URL") from None


@dataclass
class VectorPoint:
    """One vector to store: `object_id` is the element, screen or task id."""

    object_id: str
    vector: list[float]
    package: str
    app_version: str = ""
    screen_id: str = ""
    element_id: str = ""
    risky: bool = False
    text: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def payload(self) -> dict[str, Any]:
        return {"package": self.package, "app_version": self.app_version, "screen_id": self.screen_id,
                "element_id": self.element_id, "risky": self.risky, "text": self.text,
                "object_id": self.object_id, **self.extra}


@dataclass
class Hit:
    kind: str
    score: float
    payload: dict[str, Any]


class VectorStore:
    """Thin layer over an injected QdrantClient: fixed collections, idempotent upserts, filtered search."""

    def __init__(self, client: QdrantClient, dim: int):
        self.client = client
        self.dim = dim
        self._write_lock = threading.Lock()  # local mode: serialise every write (see module doc)
        self._ready: set[str] = set()

    def ensure(self, kind: str) -> None:
        if kind not in COLLECTIONS:
            raise ValueError(f"unknown collection {kind!r}; one of {COLLECTIONS}")
        if kind in self._ready:
            return
        with self._write_lock:
            if not self.client.collection_exists(kind):
                self.client.create_collection(
                    kind, vectors_config=models.VectorParams(size=self.dim, distance=models.Distance.COSINE))
                with warnings.catch_warnings():  # local mode ignores payload indexes, and says so
                    warnings.simplefilter("ignore")
                    for key in ("package", "app_version", "screen_id"):
                        self.client.create_payload_index(kind, key, models.PayloadSchemaType.KEYWORD)
            self._ready.add(kind)

    def upsert(self, kind: str, points: list[VectorPoint]) -> None:
        if not points:
            return
        self.ensure(kind)
        for p in points:
            if len(p.vector) != self.dim:
                raise ValueError(f"{kind} {p.object_id}: vector of {len(p.vector)} dims, expected {self.dim}")
        structs = [models.PointStruct(id=point_id(kind, p.object_id), vector=p.vector, payload=p.payload())
                   for p in points]
        with self._write_lock:
            try:
                self.client.upsert(kind, points=structs, wait=True)
            except (ConnectionError, TimeoutError) as exc:
                raise TransientError(f"upserting {len(points)} points into {kind}: {exc}") from exc

    def delete(self, kind: str, object_ids: list[str]) -> None:
        if not object_ids:
            return
        self.ensure(kind)
        with self._write_lock:
            self.client.delete(kind, points_selector=models.PointIdsList(
                points=[point_id(kind, i) for i in object_ids]), wait=True)

    def delete_screens(self, kind: str, screen_ids: list[str]) -> None:
        """Remove every point of these screens (before writing their new points)."""
        if not screen_ids:
            return
        self.ensure(kind)
        with self._write_lock:
            self.client.delete(kind, points_selector=models.FilterSelector(filter=models.Filter(must=[
                models.FieldCondition(key="screen_id", match=models.MatchAny(any=list(screen_ids)))])), wait=True)

    def search(self, kind: str, vector: list[float], k: int = 5, packages: list[str] | None = None,
               app_version: str | None = None, risky: bool | None = None, distinct: str | None = None) -> list[Hit]:
        """The k nearest points of `kind`, optionally only of these packages / version / risk.
        With `distinct` (a payload key, e.g. "element_id"), the k best distinct values:
        an element with several texts counts once, by its best one."""
        self.ensure(kind)
        must: list[models.Condition] = []
        if packages:
            must.append(models.FieldCondition(key="package", match=models.MatchAny(any=list(packages))))
        if app_version is not None:
            must.append(models.FieldCondition(key="app_version", match=models.MatchValue(value=app_version)))
        if risky is not None:
            must.append(models.FieldCondition(key="risky", match=models.MatchValue(value=risky)))
        flt = models.Filter(must=must) if must else None
        if distinct is None:
            result = self.client.query_points(kind, query=vector, limit=k, with_payload=True, query_filter=flt)
            return [Hit(kind, float(p.score), dict(p.payload or {})) for p in result.points]
        groups = self.client.query_points_groups(kind, query=vector, group_by=distinct, limit=k, group_size=1,
                                                 with_payload=True, query_filter=flt)
        return [Hit(kind, float(g.hits[0].score), dict(g.hits[0].payload or {})) for g in groups.groups if g.hits]

    def values(self, kind: str, key: str, packages: list[str] | None = None) -> dict[str, object]:
        """object_id → payload[key] of every point of `kind` (of these packages)."""
        self.ensure(kind)
        flt = models.Filter(must=[models.FieldCondition(key="package", match=models.MatchAny(any=packages))]) \
            if packages else None
        out: dict[str, object] = {}
        offset = None
        while True:
            points, offset = self.client.scroll(kind, scroll_filter=flt, limit=1000, offset=offset,
                                                with_payload=["object_id", key], with_vectors=False)
            out.update({p.payload["object_id"]: p.payload.get(key) for p in points if p.payload})
            if offset is None:
                return out

    def count(self, kind: str, packages: list[str] | None = None) -> int:
        self.ensure(kind)
        flt = models.Filter(must=[models.FieldCondition(key="package", match=models.MatchAny(any=packages))]) \
            if packages else None
        return self.client.count(kind, count_filter=flt, exact=True).count
