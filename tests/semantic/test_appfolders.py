"""Local mode keeps each app in its own Qdrant folder: a writer opens only the apps it touches, keeps a
bounded number open, and moves a folder of the previous layout app by app. Real model, real local Qdrant."""
from __future__ import annotations

import pytest
from qdrant_client import QdrantClient, models

import appmem.semantic.appfolders
from appmem.errors import ConfigError, StackError
from appmem.settings import Settings
from appmem.semantic.embedder import Embedder
from appmem.semantic.snapshots import SnapshotVectors, publish
from appmem.semantic.points import VectorPoint, point_id
from appmem.semantic.vectors import VectorStore, open_qdrant

APPS = {f"com.app{i}.notes": [f"create note {i}", f"delete note {i}", "OK", "Cancel"] for i in range(5)}


@pytest.fixture(scope="module")
def embedder(tmp_path_factory) -> Embedder:
    return Embedder(tmp_path_factory.mktemp("home"), threads=2)


def points(embedder: Embedder, package: str) -> list[VectorPoint]:
    texts = APPS[package]
    return [VectorPoint(f"{package}/e{i}", v, package, "1", f"{package}/s0", f"{package}/e{i}", False, t)
            for i, (t, v) in enumerate(zip(texts, embedder.embed(texts)))]


def write_apps(settings: Settings, embedder: Embedder) -> None:
    vectors = VectorStore(open_qdrant(settings), embedder.dim, settings.snapshot_path)
    try:
        for package in APPS:
            vectors.upsert("elements", points(embedder, package))
        publish(vectors)
    finally:
        vectors.close()


def test_a_writer_opens_only_the_apps_it_touches(embedder, tmp_path, monkeypatch):
    monkeypatch.setattr(appmem.semantic.appfolders, "OPEN", 2)
    settings = Settings(home=tmp_path)
    write_apps(settings, embedder)
    assert sorted(p.name for p in (settings.qdrant_path / "apps").iterdir()) == sorted(APPS)
    assert not (settings.qdrant_path / "meta.json").exists()  # nothing in the shared folder
    client = open_qdrant(settings)
    vectors = VectorStore(client, embedder.dim, settings.snapshot_path)
    try:
        assert vectors.packages() == sorted(APPS)  # listed from the folders' names: none opened
        assert client.opened == 0
        assert vectors.count("elements", ["com.app3.notes"]) == 4
        assert client.opened == 1 and list(client._open) == ["com.app3.notes"]
        hits = vectors.search("elements", embedder.query("make a new note"), 1, packages=["com.app1.notes"])
        assert hits[0].payload["object_id"] == "com.app1.notes/e0"
        for package in APPS:  # every app once: never more than OPEN folders open at a time
            vectors.upsert("elements", [VectorPoint(f"{package}/extra", embedder.query("Settings"), package)])
            assert len(client._open) <= 2
        assert vectors.count("elements") == 5 * len(APPS)  # closed folders kept their points
        with pytest.raises(ConfigError, match="one process per folder"):
            open_qdrant(settings)  # one owner for the whole tree, as for one folder
    finally:
        vectors.close()
    reader = SnapshotVectors(settings.snapshot_path, embedder.dim)
    assert reader.count("elements") == 4 * len(APPS)  # not published since the extra points: the old snapshots


def test_a_closed_store_opens_no_folder_again(embedder, tmp_path):
    """A thread that outlives the store's owner (a server's preload at shutdown) gets an error, not a folder that
    stays locked in this process: the next owner opens every app."""
    settings = Settings(home=tmp_path)
    write_apps(settings, embedder)
    vectors = VectorStore(open_qdrant(settings), embedder.dim, settings.snapshot_path)
    vectors.close()
    with pytest.raises(StackError, match="closed"):
        vectors.count("elements", ["com.app1.notes"])
    again = VectorStore(open_qdrant(settings), embedder.dim, settings.snapshot_path)
    try:
        assert again.count("elements") == 4 * len(APPS)
    finally:
        again.close()


def test_a_purge_removes_the_apps_folder(embedder, tmp_path):
    settings = Settings(home=tmp_path)
    write_apps(settings, embedder)
    vectors = VectorStore(open_qdrant(settings), embedder.dim, settings.snapshot_path)
    try:
        vectors.delete_packages(["com.app2.notes"])
        assert publish(vectors) == ["com.app2.notes"]
        assert not (settings.qdrant_path / "apps" / "com.app2.notes").exists()
        assert "com.app2.notes" not in vectors.packages()
        assert vectors.count("elements", ["com.app2.notes"]) == 0
    finally:
        vectors.close()


def test_a_folder_of_the_previous_layout_is_moved_app_by_app(embedder, tmp_path):
    """Every app's collections in one folder (the layout before): the first owner moves them out."""
    settings = Settings(home=tmp_path)
    settings.qdrant_path.mkdir(parents=True)
    old = QdrantClient(path=str(settings.qdrant_path))
    for package in APPS:
        name = f"elements__{package}"
        old.create_collection(name, vectors_config=models.VectorParams(size=embedder.dim,
                                                                       distance=models.Distance.COSINE))
        old.upsert(name, [models.PointStruct(id=point_id("elements", p.object_id), vector=p.vector,
                                             payload=p.payload()) for p in points(embedder, package)])
    old.close()
    client = open_qdrant(settings)
    vectors = VectorStore(client, embedder.dim, settings.snapshot_path)
    try:
        assert sorted(p.name for p in (settings.qdrant_path / "apps").iterdir()) == sorted(APPS)
        assert client.get_collections().collections and not left_in_root(client)
        assert vectors.packages() == sorted(APPS)
        assert vectors.points("elements", ["com.app4.notes"])[0][1]["text"] == "create note 4"
        assert vectors.count("elements") == 4 * len(APPS)
    finally:
        vectors.close()


def left_in_root(client) -> list[str]:
    """The collections left in the shared folder itself."""
    return [c.name for c in client._root().get_collections().collections]
