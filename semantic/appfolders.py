"""Qdrant local mode with a folder per app: a process holds in memory only the apps it touches.

Local mode loads every collection of its folder into Python when a client opens
it, so one folder for all apps makes any writer (summarize, the ingest worker)
hold every app's points: ≈ 2 GB at 120 apps. `AppFolders` looks like the
QdrantClient methods `VectorStore` calls, and routes each call by collection
name: an app's collection (`elements__<package key>`) lives in its own local
folder, `<root>/apps/<package key>/`, opened on first use and closed when more
than `OPEN` apps are open (least recently used first). Any other name (the
shared collections of a server's layout run on local mode, by tests and
bench/scale.py's baseline, or a folder written before this layout) goes to
the local folder `<root>` itself, opened on first use.

One process owns the whole tree, as with one folder: `<root>/owner.lock` is
held while `AppFolders` is open (a second owner gets RuntimeError, as a second
QdrantClient on one folder does). Calls are serialised: a call never sees its
app's client closed under it by another thread, and a call after `close()` (a
thread that outlived its owner) raises StackError instead of opening a folder
that nothing would close again. A folder written with every
app's collections in `<root>` is moved, app by app, on the first open.
"""
from __future__ import annotations

import fcntl
import json
import shutil
import threading
from collections import OrderedDict
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, Callable

from appmem.errors import StackError
from appmem.lazy import LazyModule

if TYPE_CHECKING:
    from qdrant_client import QdrantClient

models = LazyModule("qdrant_client.models")  # qdrant_client is imported only where a client is made (≈ 0.9 s)

SEP = "__"
OPEN = 8  # app folders kept open: summarize's batches touch a few apps at a time
PAGE = 10_000


class AppFolders:
    """The QdrantClient methods VectorStore uses, over a local folder per app (module doc)."""

    def __init__(self, root: Path, on_open: "Callable[[QdrantClient, str], None] | None" = None):
        self.root = Path(root)
        self.apps = self.root / "apps"
        self.apps.mkdir(parents=True, exist_ok=True)
        self._owner = (self.root / "owner.lock").open("a+")
        try:
            fcntl.flock(self._owner, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._owner.close()
            raise RuntimeError(f"Storage folder {self.root} is already accessed by another instance") from None
        self._on_open = on_open or (lambda client, name: None)  # per collection, each time a folder opens
        self._open: OrderedDict[str, QdrantClient] = OrderedDict()
        self._root_client: QdrantClient | None = None
        self._lock = threading.RLock()
        self.opened = 0  # app folders opened (a measure of what the process touched)
        self._move_app_collections_out_of_root()

    # -- routing -----------------------------------------------------------------------------------
    @staticmethod
    def _app_key(name: str) -> str | None:
        return name.split(SEP, 1)[1] if SEP in name else None

    def _check_open(self) -> None:
        if self._owner.closed:
            raise StackError(f"{self.root}: the local vector store is closed")

    def _root(self) -> QdrantClient:
        from qdrant_client import QdrantClient

        self._check_open()
        if self._root_client is None:
            self._root_client = QdrantClient(path=str(self.root))
        return self._root_client

    def _app(self, key: str) -> QdrantClient:
        client = self._open.get(key)
        if client is not None:
            self._open.move_to_end(key)
            return client
        from qdrant_client import QdrantClient

        self._check_open()
        while len(self._open) >= OPEN:
            self._open.popitem(last=False)[1].close()
        client = self._open[key] = QdrantClient(path=str(self.apps / key))
        self.opened += 1
        for name in _local_names(client):
            self._on_open(client, name)
        return client

    def _exists(self, name: str) -> bool:
        key = self._app_key(name)
        if key is None:
            return (self.root / "meta.json").exists() and self._root().collection_exists(name)
        return name in self._names_of(key)

    def _names_of(self, key: str) -> list[str]:
        """The collections of an app's folder, from its meta.json (the folder is not opened)."""
        if key in self._open:
            return _local_names(self._open[key])
        try:
            return list(json.loads((self.apps / key / "meta.json").read_text())["collections"])
        except FileNotFoundError:
            return []

    def _call(self, method: str, name: str, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            key = self._app_key(name)
            client = self._root() if key is None else self._app(key)
            return getattr(client, method)(name, *args, **kwargs)

    # -- the client's interface --------------------------------------------------------------------
    def get_collections(self) -> SimpleNamespace:
        with self._lock:
            names = [n for key in sorted(p.name for p in self.apps.iterdir() if p.is_dir())
                     for n in self._names_of(key)]
            if self._root_client is not None or (self.root / "meta.json").exists():
                names += _local_names(self._root())
            return SimpleNamespace(collections=[SimpleNamespace(name=n) for n in names])

    def collection_exists(self, name: str) -> bool:
        with self._lock:
            return self._exists(name)

    def create_collection(self, name: str, *args: Any, **kwargs: Any) -> bool:
        with self._lock:
            created = self._call("create_collection", name, *args, **kwargs)
            key = self._app_key(name)
            if key is not None:
                self._on_open(self._app(key), name)
            return created

    def delete_collection(self, name: str) -> bool:
        with self._lock:
            if not self._exists(name):
                return False
            deleted = self._call("delete_collection", name)
            key = self._app_key(name)
            if key is not None and not self._names_of(key):  # an app's last collection: its folder goes too
                self.close_app(key)
                shutil.rmtree(self.apps / key, ignore_errors=True)
            return deleted

    def close(self) -> None:
        with self._lock:
            for client in self._open.values():
                client.close()
            self._open.clear()
            if self._root_client is not None:
                self._root_client.close()
                self._root_client = None
            if not self._owner.closed:
                fcntl.flock(self._owner, fcntl.LOCK_UN)
                self._owner.close()

    def __getattr__(self, method: str) -> Callable[..., Any]:
        """upsert, delete, scroll, count, query_points, query_points_groups, facet, create_payload_index:
        the collection's own client's method."""
        if method.startswith("_"):
            raise AttributeError(method)
        return lambda name, *args, **kwargs: self._call(method, name, *args, **kwargs)

    # -- moving a folder written before this layout ------------------------------------------------
    def _move_app_collections_out_of_root(self) -> None:
        if not (self.root / "meta.json").exists():
            return
        root = self._root()
        for name in [n for n in _local_names(root) if self._app_key(n)]:
            params = root.get_collection(name).config.params.vectors
            self.create_collection(name, vectors_config=params)
            offset = None
            while True:
                points, offset = root.scroll(name, limit=PAGE, offset=offset, with_payload=True, with_vectors=True)
                if points:
                    self._call("upsert", name, points=[models.PointStruct(id=p.id, vector=p.vector, payload=p.payload)
                                                       for p in points], wait=True)
                if offset is None:
                    break
            root.delete_collection(name)
            self.close_app(self._app_key(name))

    def close_app(self, key: str | None) -> None:
        with self._lock:
            client = self._open.pop(key, None) if key else None
            if client is not None:
                client.close()


def _local_names(client: QdrantClient) -> list[str]:
    return [c.name for c in client.get_collections().collections]
