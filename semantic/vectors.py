"""The vector store: Qdrant collections of elements, screens and tasks, one set per app in local mode.

`open_qdrant(settings)` creates the one client of a process: Qdrant's local
mode (`settings.qdrant_path`, embedded, persisted on disk) by default, a server
when `settings.qdrant_url` is set. The caller owns it and injects it into
`VectorStore`; close it with `client.close()`.

An app costs what it holds. Local mode keeps every point in Python and scans
all of a collection for any payload filter (`create_payload_index` is ignored),
so there each app has its own collections, `<kind>__<package>`: loading,
counting or replacing one app's points touches only that app's. A local
client also loads every collection of its folder when it opens, so each app's
collections live in a folder of their own, opened when used and closed when
others are (semantic/appfolders.py): a writer holds the apps it writes. A server
indexes the payload, so there each kind is one collection with a keyword index
on `package`, and reads filter by it (Qdrant's advice for many tenants).

Local mode has two more limits: one process at a time may open a folder (a
second gets ConfigError here), and concurrent writes from threads of that
process fail, so every write goes through `VectorStore`'s lock. Reads need no
lock. Processes that only read (serve workers) read the per-app snapshots that
`semantic.snapshots.publish` writes after a change, never the folder.

Which embedding model made the vectors is recorded beside them and checked by every process that opens
them (`VectorStore.claim_model`, semantic/modelrecord.py).

What a point is, its id and the order hits are cut in: semantic/points.py.
"""
from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from appmem.lazy import LazyModule
from appmem.errors import ConfigError, TransientError
from appmem.settings import Settings
from appmem.semantic import modelrecord
from appmem.semantic.appfolders import SEP, AppFolders  # SEP: local mode's collection `elements__com.example.app`
from appmem.semantic.points import COLLECTIONS, TIE_MARGIN, Hit, VectorPoint, best, check_kind, package_key, point_id

if TYPE_CHECKING:
    from qdrant_client import QdrantClient

# Importing qdrant_client costs ≈ 0.9 s: processes that read only the snapshots (the CLI, serve workers) never do.
models = LazyModule("qdrant_client.models")

PAGE = 10_000


@contextmanager
def reaching(doing: str) -> Iterator[None]:
    """A vector store that does not answer (a server refusing connections or timing out) raises
    TransientError naming what was being done: its caller retries, or records the work as pending."""
    from qdrant_client.http.exceptions import ResponseHandlingException

    try:
        yield
    except (ResponseHandlingException, ConnectionError, TimeoutError) as exc:
        raise TransientError(f"the vector store did not answer while {doing}: {exc}") from exc


def open_qdrant(settings: Settings) -> "QdrantClient | AppFolders":
    """The process's Qdrant client: a server if QDRANT_URL is set, else local mode, a folder per app."""
    from qdrant_client import QdrantClient

    if settings.qdrant_url:
        return QdrantClient(url=settings.qdrant_url, api_key=settings.qdrant_api_key, timeout=30)
    settings.qdrant_path.mkdir(parents=True, exist_ok=True)
    try:
        return AppFolders(settings.qdrant_path, on_open=lambda client, name: _fast_local_writes(client, name))
    except RuntimeError as exc:  # "Storage folder ... is already accessed by another instance"
        raise ConfigError(f"{settings.qdrant_path}: {exc}. Local Qdrant allows one process per folder: "
                          "stop the other appmem process, set QDRANT_URL, or read the snapshots") from None


def open_vectors(settings: Settings, dim: int, check: bool = True, reembed: bool = False) -> "VectorStore":
    """The writable store of the one owner process: Qdrant, publishing snapshots to `settings.snapshot_path`.
    Its vectors must be `settings.embed_model`'s (else ConfigError), recorded if the store holds no record
    (`VectorStore.claim_model`); `check=False` (a purge, which only deletes) checks nothing and reaches
    no server yet. `reembed`: first drop every app's vectors, to embed them all again with `settings.embed_model`
    (`appmem summarize --reembed`). Close it with `store.client.close()`."""
    store = VectorStore(open_qdrant(settings), dim, settings.snapshot_path)
    try:
        if reembed:
            store.drop_all()
        if check:
            store.claim_model(settings.embed_model, where=where(settings))
    except BaseException:
        store.close()
        raise
    return store


def where(settings: Settings) -> str:
    """The vector store, as an error names it."""
    return f"the vector store {settings.qdrant_url or settings.qdrant_path}"


class VectorStore:
    """Thin layer over an injected QdrantClient: per-app collections (local mode) or a package
    index (server), idempotent upserts, filtered search. `snapshots` (a folder): where
    `semantic.snapshots.publish` writes the per-app read-only snapshots that other processes read (semantic/snapshots.py).
    `per_app`: the layout (default: per-app collections in local mode, shared ones on a server);
    tests and bench/scale.py run the server's layout on local mode too."""

    def __init__(self, client: QdrantClient | AppFolders, dim: int, snapshots: Path | None = None, per_app: bool | None = None):
        self.client = client
        self.dim = dim
        self.snapshots = snapshots
        self.per_app = not _is_server(client) if per_app is None else per_app
        self._write_lock = threading.RLock()  # local mode: serialise every write (see module doc); re-entered by ensure
        self._ready: set[str] = set()
        self.dirty: set[str] = set()  # packages written since the last snapshot (semantic.snapshots.publish)
        self.record: modelrecord.Record | None = None  # the memory's embedding model, once read (`claim_model`)
        if self.per_app:
            self._split_shared_collections()

    # -- layout ------------------------------------------------------------------------------------
    def collection(self, kind: str, package: str) -> str:
        check_kind(kind)
        return f"{kind}{SEP}{package_key(package)}" if self.per_app else kind

    def packages(self, kind: str = "elements") -> list[str]:
        """Every package that has points of `kind`."""
        check_kind(kind)
        if self.per_app:
            names = [c.name for c in self.client.get_collections().collections if c.name.startswith(kind + SEP)]
            return sorted(p for p in (self._package_of(n) for n in names) if p)
        if not self.client.collection_exists(kind):
            return []
        facets = self.client.facet(kind, key="package", limit=1_000_000)
        return sorted(str(h.value) for h in facets.hits)

    def _package_of(self, name: str) -> str | None:
        key = name.split(SEP, 1)[1]
        if not key.startswith("h-"):  # a plain package name is its own key (package_key)
            return key
        points, _ = self.client.scroll(name, limit=1, with_payload=["package"], with_vectors=False)
        return str(points[0].payload["package"]) if points and points[0].payload else None

    def _targets(self, kind: str, packages: list[str] | None) -> list[tuple[str, models.Filter | None]]:
        """(collection, package filter) pairs that hold the points of `packages` (all when None)."""
        check_kind(kind)
        if self.per_app:
            if packages is None:
                return [(c.name, None) for c in self.client.get_collections().collections
                        if c.name.startswith(kind + SEP)]
            names = [self.collection(kind, p) for p in dict.fromkeys(packages)]
            return [(n, None) for n in names if n in self._ready or self.client.collection_exists(n)]
        self.ensure(kind)
        flt = models.Filter(must=[models.FieldCondition(key="package", match=models.MatchAny(any=list(packages)))]) \
            if packages else None
        return [(kind, flt)]

    def ensure(self, kind: str, package: str | None = None) -> str:
        """The collection of `kind` (for `package` in local mode), created if missing. Local mode
        without a package: only checks `kind` (an app's collections are made by its first write)."""
        check_kind(kind)
        if package is None and self.per_app:
            return ""
        name = self.collection(kind, package) if package is not None else kind
        if name in self._ready:
            return name
        with self._write_lock:
            if not self.client.collection_exists(name):
                self.client.create_collection(
                    name, vectors_config=models.VectorParams(size=self.dim, distance=models.Distance.COSINE))
                if not self.per_app:  # a server indexes the keys reads filter by
                    for key in ("package", "app_version", "screen_id"):
                        self.client.create_payload_index(name, key, models.PayloadSchemaType.KEYWORD)
            if self.per_app and not isinstance(self.client, AppFolders):  # AppFolders does it on each open
                _fast_local_writes(self.client, name)
            self._ready.add(name)
        return name

    def vector_collections(self) -> list[str]:
        """The collections that hold vectors of any app (not the model's record)."""
        return [c.name for c in self.client.get_collections().collections if c.name.split(SEP, 1)[0] in COLLECTIONS]

    # -- the embedding model -----------------------------------------------------------------------
    def claim_model(self, model: str, where: str = "the vector store", write: bool = True) -> None:
        """Check that the vectors held are `model`'s (semantic/modelrecord.py): ConfigError naming both models
        otherwise. `write`: record the model where no record is (a store with no vector yet: `model`; one
        written before records: the default model of its vectors' size, once checked). Keeps the memory's
        record in `self.record` (each snapshot carries it)."""
        wanted = modelrecord.record_of(model)
        with self._write_lock, reaching(f"reading the embedding model of {where}"):
            memory = modelrecord.stored(self.client)
            if memory is None or memory["model_id"] != wanted["model_id"]:
                held = self.vector_collections()
                legacy = memory is None and bool(held)
                if legacy:
                    memory = modelrecord.legacy_record(self.client.get_collection(held[0]).config.params.vectors.size)
                if not held:  # no vector of any model: whoever writes first records theirs
                    memory = wanted
                modelrecord.check(where, memory, model, legacy)
                if write:
                    modelrecord.stamp(self.client, memory)
            self.record = memory

    def model_record(self) -> modelrecord.Record | None:
        """The memory's record of its model (what `claim_model` found, else read now); None where it has none."""
        if self.record is None:
            self.record = modelrecord.stored(self.client)
        return self.record

    def drop_all(self) -> None:
        """Remove every app's vectors (to embed the memory again with another model); the record stays until
        `claim_model` writes the new one. The apps' snapshots go with the next publish."""
        with self._write_lock, reaching("dropping every vector"):
            packages = sorted({p for kind in COLLECTIONS for p in self.packages(kind)})
            for name in self.vector_collections():  # a server's shared ones too: made again at the new size
                self.client.delete_collection(name)
                self._ready.discard(name)
        self.dirty.update(packages)

    def _split_shared_collections(self) -> None:
        """A folder written before per-app collections: move each app's points into its own."""
        existing = {c.name for c in self.client.get_collections().collections}
        for kind in COLLECTIONS:
            if kind not in existing:
                continue
            offset = None
            while True:
                points, offset = self.client.scroll(kind, limit=PAGE, offset=offset, with_payload=True,
                                                    with_vectors=True)
                by_package: dict[str, list[models.PointStruct]] = {}
                for p in points:
                    package = str((p.payload or {}).get("package") or "")
                    by_package.setdefault(package, []).append(models.PointStruct(id=p.id, vector=p.vector,
                                                                                 payload=p.payload))
                for package, structs in by_package.items():
                    self.client.upsert(self.ensure(kind, package), points=structs, wait=True)
                    self.dirty.add(package)
                if offset is None:
                    break
            self.client.delete_collection(kind)

    # -- writes ------------------------------------------------------------------------------------
    def upsert(self, kind: str, points: list[VectorPoint]) -> None:
        if not points:
            return
        check_kind(kind)
        for p in points:
            if len(p.vector) != self.dim:
                raise ValueError(f"{kind} {p.object_id}: vector of {len(p.vector)} dims, expected {self.dim}")
        by_collection: dict[str, list[models.PointStruct]] = {}
        for p in points:
            name = self.ensure(kind, p.package)
            by_collection.setdefault(name, []).append(
                models.PointStruct(id=point_id(kind, p.object_id), vector=p.vector, payload=p.payload()))
        with self._write_lock:
            for name, structs in by_collection.items():
                with reaching(f"upserting {len(structs)} points into {name}"):
                    self.client.upsert(name, points=structs, wait=True)
        self.dirty.update(p.package for p in points)

    def delete(self, kind: str, object_ids: list[str], packages: list[str] | None = None) -> None:
        if not object_ids:
            return
        selector = models.PointIdsList(points=[point_id(kind, i) for i in object_ids])
        with self._write_lock, reaching(f"deleting {len(object_ids)} points of {kind}"):
            for name, _ in self._targets(kind, packages):
                self.client.delete(name, points_selector=selector, wait=True)
            self.dirty.update(packages or self.packages(kind))

    def delete_screens(self, kind: str, screen_ids: list[str], packages: list[str] | None = None) -> None:
        """Remove every point of these screens (before writing their new points); name the
        screens' `packages` so that other apps' points are not scanned."""
        if not screen_ids:
            return
        condition = models.FieldCondition(key="screen_id", match=models.MatchAny(any=list(screen_ids)))
        with self._write_lock, reaching(f"deleting the {kind} points of {len(screen_ids)} screens"):
            for name, flt in self._targets(kind, packages):
                must = [condition, *(flt.must if flt else [])]
                self.client.delete(name, points_selector=models.FilterSelector(filter=models.Filter(must=must)),
                                   wait=True)
            self.dirty.update(packages or self.packages(kind))

    def delete_packages(self, packages: list[str]) -> None:
        """Remove every point of these apps (a purge)."""
        with self._write_lock:
            for kind in COLLECTIONS:
                for name, flt in self._targets(kind, packages):
                    if self.per_app:
                        self.client.delete_collection(name)
                        self._ready.discard(name)
                    else:
                        self.client.delete(name, points_selector=models.FilterSelector(filter=flt), wait=True)
        self.dirty.update(packages)

    def close(self) -> None:
        self.client.close()

    def health(self) -> None:
        """Raises when the store cannot answer (a health check)."""
        self.client.get_collections()

    # -- reads -------------------------------------------------------------------------------------
    def search(self, kind: str, vector: list[float], k: int = 5, packages: list[str] | None = None,
               app_version: str | None = None, risky: bool | None = None, distinct: str | None = None) -> list[Hit]:
        """The k nearest points of `kind`, optionally only of these packages / version / risk.
        With `distinct` (a payload key, e.g. "element_id"), the k best distinct values:
        an element with several texts counts once, by its best one."""
        must: list[models.Condition] = []
        if app_version is not None:
            must.append(models.FieldCondition(key="app_version", match=models.MatchValue(value=app_version)))
        if risky is not None:
            must.append(models.FieldCondition(key="risky", match=models.MatchValue(value=risky)))
        hits: list[Hit] = []
        limit = k + TIE_MARGIN  # ties at the cut are settled by `best`, not by the order Qdrant leaves them in
        for name, flt in self._targets(kind, packages):
            conditions = must + list(flt.must if flt else [])
            query_filter = models.Filter(must=conditions) if conditions else None
            if distinct is None:
                result = self.client.query_points(name, query=vector, limit=limit, with_payload=True,
                                                  query_filter=query_filter)
                hits += [Hit(kind, float(p.score), dict(p.payload or {})) for p in result.points]
            else:  # a distinct value (an element, a screen) lies within one app: groups never span collections
                groups = self.client.query_points_groups(name, query=vector, group_by=distinct, limit=limit,
                                                         group_size=1, with_payload=True, query_filter=query_filter)
                hits += [Hit(kind, float(g.hits[0].score), dict(g.hits[0].payload or {}))
                         for g in groups.groups if g.hits]
        return best(hits, k)

    def points(self, kind: str, packages: list[str]) -> list[tuple[list[float], dict[str, Any]]]:
        """Every (vector, payload) of `kind` of these packages, ordered by object id."""
        rows: list[tuple[list[float], dict[str, Any]]] = []
        for name, flt in self._targets(kind, packages):
            offset = None
            while True:
                got, offset = self.client.scroll(name, scroll_filter=flt, limit=PAGE, offset=offset,
                                                 with_payload=True, with_vectors=True)
                rows += [(list(p.vector), dict(p.payload or {})) for p in got]
                if offset is None:
                    break
        return sorted(rows, key=lambda r: str(r[1].get("object_id")))

    def values(self, kind: str, key: str, packages: list[str] | None = None) -> dict[str, object]:
        """object_id → payload[key] of every point of `kind` (of these packages)."""
        out: dict[str, object] = {}
        for name, flt in self._targets(kind, packages):
            offset = None
            while True:
                got, offset = self.client.scroll(name, scroll_filter=flt, limit=PAGE, offset=offset,
                                                 with_payload=["object_id", key], with_vectors=False)
                out.update({p.payload["object_id"]: p.payload.get(key) for p in got if p.payload})
                if offset is None:
                    break
        return out

    def count(self, kind: str, packages: list[str] | None = None) -> int:
        return sum(self.client.count(name, count_filter=flt, exact=True).count
                   for name, flt in self._targets(kind, packages))


def _fast_local_writes(client: QdrantClient, name: str) -> None:
    """Local mode commits every point in its own SQLite transaction, each with an fsync (≈1k points/s).
    In WAL mode with synchronous=NORMAL a commit does not wait for the disk: durable across a crash of
    the process; a power cut may lose the last commits, which `summarize` redoes (it checks the
    hash on the points). Only speed depends on it: skipped if qdrant-client's internals differ."""
    collection = getattr(getattr(client, "_client", None), "collections", {}).get(name)
    connection = getattr(getattr(collection, "storage", None), "storage", None)
    if connection is not None:
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")


def _is_server(client: QdrantClient | AppFolders) -> bool:
    from qdrant_client.local.qdrant_local import QdrantLocal

    return not isinstance(client, AppFolders) and not isinstance(getattr(client, "_client", None), QdrantLocal)
