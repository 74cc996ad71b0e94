"""A tenant view's own points of its apps, kept on disk as they were last computed, by what they were computed from.

A tenant's view computes its own points of an app from its graph of the app (semantic/layers.py
`layer_rows`: a summary without a model, the texts' vectors from the embedder's cache). The ingest
worker computes them after each contribution of the tenant's keys (workers/layers.py); kept here, the
view's first plan reads them instead of summarising its layer again, when its graph is what they were
computed from: each entry holds the digest of its inputs (semantic/layers.py `layer_digest`), and a
view whose graph gives another digest (the memory changed since) computes its points and keeps them.
So an entry is never read for other inputs than its own, and the points read are those computed.

Entries are the tenant's: kept under its name, read only for its view, one per kind of points and set
of apps (the newest replaces the older). A tenant's purge forgets its entries (`forget_namespace`), a
key's purge those of the apps it reported (`forget_apps`), as the embedder's cache forgets their texts.
`<APPMEM_HOME>/layers.sqlite` (SQLite WAL: safe for threads and processes); a lost file costs only
recomputation.
"""
from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Iterable

import numpy as np

from appmem.semantic.layers import Layer, Row

CACHE_FILE = "layers.sqlite"


class LayerCache:
    """Tenants' points (a `Layer`) by tenant, kind and apps, each with the digest of what it was computed from."""

    def __init__(self, path: Path):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._con = sqlite3.connect(str(path), timeout=60, check_same_thread=False, isolation_level=None)
        self._con.execute("PRAGMA journal_mode=WAL")
        self._con.execute("PRAGMA synchronous=NORMAL")
        # apps: "\x1fP1\x1fP2\x1f" (each app between separators: a key's purge finds its apps' entries)
        self._con.execute("CREATE TABLE IF NOT EXISTS layers (namespace TEXT NOT NULL, scope TEXT NOT NULL, "
                          "apps TEXT NOT NULL, digest BLOB NOT NULL, counts TEXT NOT NULL, vectors BLOB NOT NULL, "
                          "payloads TEXT NOT NULL, PRIMARY KEY (namespace, scope)) WITHOUT ROWID")
        self._lock = threading.Lock()
        self.found = self.stored = 0  # entries read for a view / kept, this process

    @classmethod
    def at(cls, home: Path) -> "LayerCache":
        return cls(Path(home) / CACHE_FILE)

    def get(self, namespace: str, scope: str, digest: bytes) -> Layer | None:
        """The points kept for `namespace` (a tenant) and `scope` when they were computed from inputs of this
        digest, else None."""
        with self._lock:
            row = self._con.execute("SELECT counts, vectors, payloads FROM layers WHERE namespace = ? AND scope = ? "
                                    "AND digest = ?", (namespace, scope, digest)).fetchone()
        if row is None:
            return None
        self.found += 1
        counts, payloads = json.loads(row[0]), json.loads(row[2])
        matrix = np.frombuffer(row[1], dtype=np.float32).reshape(len(payloads), -1) if payloads else None
        rows: list[Row] = [(matrix[i], payloads[i]) for i in range(len(payloads))]
        return Layer(rows[:counts["elements"]], rows[counts["elements"]:])

    def put(self, namespace: str, scope: str, digest: bytes, layer: Layer, apps: Iterable[str]) -> None:
        """Keep `layer` for `namespace` and `scope`, computed from inputs of `digest` (in place of what was kept)."""
        rows = layer.elements + layer.screens
        vectors = np.asarray([v for v, _ in rows], dtype=np.float32).tobytes() if rows else b""
        marked = "\x1f" + "\x1f".join(sorted(set(apps))) + "\x1f"
        with self._lock:
            self._con.execute("INSERT OR REPLACE INTO layers VALUES (?, ?, ?, ?, ?, ?, ?)",
                              (namespace, scope, marked, digest, json.dumps({"elements": len(layer.elements)}),
                               vectors, json.dumps([p for _, p in rows])))
            self.stored += 1

    def forget(self, namespace: str) -> int:
        """Delete the entries of `namespace` (a purged tenant's); how many."""
        with self._lock:
            return self._con.execute("DELETE FROM layers WHERE namespace = ?", (namespace,)).rowcount

    def forget_apps(self, packages: Iterable[str]) -> int:
        """Delete every tenant's entries that hold points of these apps; how many."""
        with self._lock:
            return sum(self._con.execute("DELETE FROM layers WHERE instr(apps, ?) > 0", (f"\x1f{p}\x1f",)).rowcount
                       for p in packages)

    def close(self) -> None:
        self._con.close()


def forget_namespace(home: Path, namespace: str) -> int:
    """Delete the kept points of `namespace` (a purged tenant's) from `<home>/layers.sqlite`; how many."""
    return _on_file(home, lambda cache: cache.forget(namespace))


def forget_apps(home: Path, packages: list[str]) -> int:
    """Delete every tenant's kept points of these apps (a purged key's) from `<home>/layers.sqlite`; how many."""
    return _on_file(home, lambda cache: cache.forget_apps(packages)) if packages else 0


def _on_file(home: Path, work) -> int:
    path = Path(home) / CACHE_FILE
    if not path.exists():
        return 0
    cache = LayerCache(path)
    try:
        return work(cache)
    finally:
        cache.close()
