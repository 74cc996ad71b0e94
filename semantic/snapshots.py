"""Per-app read-only snapshots of the vector store: many processes read vectors without Qdrant's folder lock.

After a writer changed an app's points (summarize, a purge), `publish(vectors)`
writes `<folder>/<package>.npz` (semantic/vectors.py `package_key` names it): for
each kind (elements, screens, tasks) the vectors as Qdrant stores them (float32,
normalised for cosine) ordered by object id, and their payloads as JSON; `meta`
holds the package, the dimension, the embedding model that made the vectors (`model`,
`model_id`: semantic/modelrecord.py) and `version`, a sha256 of the content. The
file is written under a temporary name and renamed (atomic on POSIX): a reader
sees the old snapshot or the new one, never a torn one, and a reader that opened
the old file goes on reading it. An unchanged app keeps its file; an app with no
point left has none.

`SnapshotVectors(folder, dim)` serves every read that the planner, recall, hints
and app choice make (`search`, `points`, `values`, `count`, `packages`) from those
files, with the results VectorStore gives on Qdrant (tests/test_semantic_snapshots.py).
An app's file is read on the app's first read and again when it changed (one
`stat` per read); reads of one app never open another app's file. Reads over
all apps (app choice, recall without an app) read every app's file once.
It never writes: writes go through the one process that owns the Qdrant folder.
Given the configured model, it checks the model of one app's file when it opens and of each
file it loads (a ConfigError naming both models; a file without a model: semantic/modelrecord.py).
"""
from __future__ import annotations

import hashlib
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from appmem.errors import ConfigError
from appmem.settings import Settings
from appmem.semantic import modelrecord
from appmem.semantic.points import COLLECTIONS, TIE_MARGIN, Hit, best, check_kind, package_key
from appmem.semantic.vectors import VectorStore, open_qdrant, reaching, where

FORMAT = "appmem-vectors/1"


def open_reader(settings: Settings, dim: int) -> "VectorStore | SnapshotVectors":
    """What a process that only reads uses (a serve worker): the Qdrant server when QDRANT_URL is set
    (it serves many clients), else the snapshots. Never opens the local Qdrant folder.
    Either checks that the memory's embedding model is `settings.embed_model` (semantic/modelrecord.py)."""
    if settings.qdrant_url:
        server = VectorStore(open_qdrant(settings), dim)
        try:
            server.claim_model(settings.embed_model, where=where(settings), write=False)
        except BaseException:
            server.close()
            raise
        return server
    if not settings.snapshot_path.exists() and _vectors_in_root(settings.qdrant_path):
        # vectors written before snapshots existed: publish them once (needs the folder's owner lock)
        owner = VectorStore(open_qdrant(settings), dim, settings.snapshot_path)
        try:
            owner.claim_model(settings.embed_model, where=where(settings))
            publish(owner, sorted({p for kind in COLLECTIONS for p in owner.packages(kind)}))
        finally:
            owner.client.close()
    return SnapshotVectors(settings.snapshot_path, dim, settings.embed_model)


def _vectors_in_root(folder: Path) -> bool:
    """Whether the root of a local Qdrant folder holds collections of vectors (as it did before snapshots and
    per-app folders), not only the model's record (semantic/modelrecord.py)."""
    try:
        names = json.loads((folder / "meta.json").read_text())["collections"]
    except FileNotFoundError:
        return False
    return any(name != modelrecord.RECORD for name in names)


def check_model(settings: Settings) -> None:
    """ConfigError when the memory's vectors are another embedding model's than `settings.embed_model`: what a
    reader's open checks (`open_reader`), for a process that checks before it starts others (`appmem serve`)."""
    from appmem.semantic.embedder import DIMS, model_id

    model_id(settings.embed_model)  # a name that is no model: its own ConfigError
    open_reader(settings, DIMS[settings.embed_model]).close()


def publish(vectors: VectorStore, packages: list[str] | None = None) -> list[str]:
    """Write the snapshots of `packages` (default: those `vectors` wrote since the last publish) into
    `vectors.snapshots`; returns the packages whose snapshot changed. No-op without a snapshot folder."""
    todo = sorted(vectors.dirty if packages is None else set(packages))
    changed = []
    if vectors.snapshots is not None:
        vectors.snapshots.mkdir(parents=True, exist_ok=True)
        with reaching(f"publishing the snapshots of {len(todo)} apps"):
            changed = [p for p in todo if write_snapshot(vectors, p, vectors.snapshots)]
    vectors.dirty.difference_update(todo)
    return changed


def snapshot_path(folder: Path, package: str) -> Path:
    return Path(folder) / f"{package_key(package)}.npz"


def _bytes(value: Any) -> np.ndarray:
    return np.frombuffer(json.dumps(value, ensure_ascii=False, sort_keys=True).encode(), dtype=np.uint8)


def read_meta(path: Path) -> dict[str, Any]:
    with np.load(path, allow_pickle=False) as data:  # reads only the `meta` member
        return json.loads(data["meta"].tobytes())


def write_snapshot(vectors: VectorStore, package: str, folder: Path) -> bool:
    """Write `package`'s snapshot from the vector store; True when it changed (or was removed)."""
    path = snapshot_path(folder, package)
    arrays: dict[str, np.ndarray] = {}
    digest = hashlib.sha256()
    total = 0
    for kind in COLLECTIONS:
        rows = vectors.points(kind, [package])
        total += len(rows)
        matrix = np.asarray([v for v, _ in rows], dtype=np.float32).reshape(len(rows), vectors.dim)
        payloads = _bytes([p for _, p in rows])
        for part in (kind.encode(), matrix.tobytes(), payloads.tobytes()):
            digest.update(part)
        arrays[f"{kind}_vectors"], arrays[f"{kind}_payloads"] = matrix, payloads
    if total == 0:
        if path.exists():
            path.unlink()
            return True
        return False
    version = digest.hexdigest()[:32]
    if path.exists() and read_meta(path).get("version") == version:
        return False
    arrays["meta"] = _bytes({"format": FORMAT, "package": package, "dim": vectors.dim, "version": version,
                             **(vectors.model_record() or {})})  # none: read as modelrecord.LEGACY says
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.partial")
    with partial.open("wb") as f:
        np.savez(f, **arrays)
        f.flush()
        os.fsync(f.fileno())
    os.replace(partial, path)  # atomic: readers see the old file or the new one
    return True


@dataclass
class AppVectors:
    """One app's snapshot in memory."""

    package: str
    version: str
    matrices: dict[str, np.ndarray]
    payloads: dict[str, list[dict[str, Any]]]
    stamp: tuple[int, int, int]


def _load(path: Path, stamp: tuple[int, int, int], dim: int, model: str | None) -> AppVectors:
    with np.load(path, allow_pickle=False) as data:
        meta = json.loads(data["meta"].tobytes())
        if model is not None and meta.get("format") == FORMAT:
            modelrecord.check_snapshot(path, meta, model)
        if meta.get("format") != FORMAT or meta.get("dim") != dim:
            raise ConfigError(f"{path}: snapshot {meta.get('format')} of {meta.get('dim')} dims, expected "
                              f"{FORMAT} of {dim}: publish the vectors again (`appmem summarize`)")
        matrices = {k: np.ascontiguousarray(data[f"{k}_vectors"]) for k in COLLECTIONS}
        payloads = {k: json.loads(data[f"{k}_payloads"].tobytes()) for k in COLLECTIONS}
    return AppVectors(meta["package"], meta["version"], matrices, payloads, stamp)


class SnapshotVectors:
    """VectorStore's reads, from the per-app snapshot files in `folder`; read-only, shareable by processes.
    `model`: the configured embedding model, checked against one file's at open and each file's as it is
    loaded (None: not checked)."""

    read_only = True

    def __init__(self, folder: Path, dim: int, model: str | None = None):
        self.folder = Path(folder)
        self.dim = dim
        self.model = model
        self._apps: dict[str, AppVectors] = {}
        self._names: dict[str, tuple[tuple[int, int, int], str]] = {}  # file name → (stamp, package)
        self._lock = threading.Lock()
        self.files_read: list[str] = []  # the packages whose file was read, in order (what a load cost)
        if model is not None:
            self._check_model(model)

    def _check_model(self, model: str) -> None:
        """ConfigError when the snapshots hold another model's vectors (one app's file tells: one writer made them)."""
        for path in self.folder.glob("*.npz") if self.folder.exists() else ():
            try:
                meta = read_meta(path)
            except FileNotFoundError:  # purged since the listing
                continue
            modelrecord.check_snapshot(path, meta, model)
            return

    def ensure(self, kind: str, package: str | None = None) -> str:
        check_kind(kind)
        return ""

    def app(self, package: str) -> AppVectors | None:
        """`package`'s snapshot, read again when its file changed; None when it has none."""
        path = snapshot_path(self.folder, package)
        try:
            st = path.stat()
        except FileNotFoundError:
            self._apps.pop(package, None)
            return None
        stamp = (st.st_ino, st.st_mtime_ns, st.st_size)
        cached = self._apps.get(package)
        if cached is not None and cached.stamp == stamp:
            return cached
        with self._lock:
            loaded = _load(path, stamp, self.dim, self.model)
            self.files_read.append(package)
            self._apps[package] = loaded
        return loaded

    def version(self, package: str) -> str | None:
        """The content version of `package`'s vectors (changes with any point), None without any."""
        app = self.app(package)
        return app.version if app else None

    def packages(self, kind: str = "elements") -> list[str]:
        """Every package whose snapshot holds points of `kind` (reads each file's small `meta` once)."""
        check_kind(kind)
        out = []
        for path in sorted(self.folder.glob("*.npz")) if self.folder.exists() else []:
            st = path.stat()
            stamp = (st.st_ino, st.st_mtime_ns, st.st_size)
            known = self._names.get(path.name)
            if known is None or known[0] != stamp:
                known = self._names[path.name] = (stamp, read_meta(path)["package"])
            out.append(known[1])
        return [p for p in out if kind == "elements" or self.count(kind, [p])]

    def _apps_of(self, packages: list[str] | None) -> list[AppVectors]:
        names = self.packages() if packages is None else list(dict.fromkeys(packages))
        return [a for a in map(self.app, names) if a is not None]

    def search(self, kind: str, vector: list[float], k: int = 5, packages: list[str] | None = None,
               app_version: str | None = None, risky: bool | None = None, distinct: str | None = None) -> list[Hit]:
        """As VectorStore.search: cosine, the k best points (or best per `distinct` value)."""
        check_kind(kind)
        query = np.asarray(vector, dtype=np.float32)
        query = query / (np.linalg.norm(query) or 1.0)
        hits: list[Hit] = []
        for app in self._apps_of(packages):
            payloads = app.payloads[kind]
            if not payloads:
                continue
            scores = app.matrices[kind] @ query
            order = np.argsort(-scores, kind="stable")
            seen: set[Any] = set()
            taken = 0
            for i in order.tolist():
                p = payloads[i]
                if (app_version is not None and p.get("app_version") != app_version) or \
                        (risky is not None and p.get("risky") != risky):
                    continue
                if distinct is not None:
                    value = p.get(distinct)
                    if value is None or value in seen:
                        continue
                    seen.add(value)
                hits.append(Hit(kind, float(scores[i]), dict(p)))
                taken += 1
                if taken == k + TIE_MARGIN:
                    break
        return best(hits, k)

    def points(self, kind: str, packages: list[str]) -> list[tuple[np.ndarray, dict[str, Any]]]:
        """Every (vector, payload) of `kind` of these packages, ordered by object id."""
        check_kind(kind)
        rows = [(m, p) for app in self._apps_of(packages)
                for m, p in zip(app.matrices[kind], app.payloads[kind])]
        return rows if len(packages) == 1 else sorted(rows, key=lambda r: str(r[1].get("object_id")))

    def values(self, kind: str, key: str, packages: list[str] | None = None) -> dict[str, object]:
        check_kind(kind)
        return {p["object_id"]: p.get(key) for app in self._apps_of(packages) for p in app.payloads[kind]}

    def count(self, kind: str, packages: list[str] | None = None) -> int:
        check_kind(kind)
        return sum(len(app.payloads[kind]) for app in self._apps_of(packages))

    def close(self) -> None:
        self._apps.clear()

    def health(self) -> None:
        """Raises when the snapshots cannot be read (a health check); none yet is a memory with no vectors."""
        if self.folder.exists():
            next(self.folder.iterdir(), None)

    def _read_only(self, *_: Any, **__: Any) -> None:
        raise ConfigError(f"{self.folder}: the vector snapshots are read-only; write through the process "
                          "that owns the Qdrant folder (appmem summarize / the ingest worker)")

    upsert = delete = delete_screens = delete_packages = _read_only
