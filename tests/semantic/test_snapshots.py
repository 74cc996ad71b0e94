"""Per-app vectors: each app in its own collection, read-only snapshots congruent with Qdrant, readable
by other processes while one process owns the Qdrant folder. Real model, real Qdrant local mode."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from qdrant_client import models

from appmem.semantic.ranking import ElementIndex
from appmem.errors import ConfigError
from appmem.settings import Settings
from appmem.semantic.embedder import Embedder
from appmem.semantic.snapshots import SnapshotVectors, open_reader, publish, snapshot_path
from appmem.semantic.points import VectorPoint, point_id
from appmem.semantic.vectors import VectorStore, open_qdrant
from tests.conftest import REPO

APPS = {
    "com.a.calendar": ["delete all events", "add an event", "change the theme", "open settings", "OK"],
    "com.b.notes": ["delete the note", "create a note", "search notes", "OK", "Cancel"],
    "org.c.clock": ["set an alarm", "delete the alarm", "start the stopwatch", "Settings"],
}
QUERIES = ["remove every calendar event", "new note", "OK", "wake me at seven"]


@pytest.fixture(scope="module")
def embedder(tmp_path_factory) -> Embedder:
    return Embedder(tmp_path_factory.mktemp("home"), threads=2)


def app_points(embedder: Embedder, package: str, texts: list[str]) -> list[VectorPoint]:
    """Two texts per element (variants), two screens, two versions, some risky: every filter has work."""
    points = []
    for i, (text, vector) in enumerate(zip(texts, embedder.embed(texts))):
        element = f"{package}/e{i}"
        for variant in (0, 1):
            points.append(VectorPoint(element if variant == 0 else f"{element}#1", vector if variant == 0
                                      else embedder.embed([f"{text} now"])[0], package, str(i % 2), f"{package}/s{i % 2}",
                                      element, text.startswith("delete"), text, {"variant": variant, "terms": [text]}))
    return points


@pytest.fixture(params=["per-app", "shared"])
def owner(embedder, tmp_path, request):
    """The writer in local mode's layout (a collection per app) and in a server's (one collection per kind,
    filtered by package: no Qdrant server here, so it runs on local mode): the same tests hold for both."""
    settings = Settings(home=tmp_path)
    vectors = VectorStore(open_qdrant(settings), embedder.dim, settings.snapshot_path,
                          per_app=request.param == "per-app")
    for package, texts in APPS.items():
        vectors.upsert("elements", app_points(embedder, package, texts))
        vectors.upsert("tasks", [VectorPoint(f"{package}/t", embedder.embed([texts[0]])[0], package,
                                             text=texts[0], extra={"task_id": f"{package}/t"})])
    assert sorted(publish(vectors)) == sorted(APPS)
    yield settings, vectors
    vectors.client.close()


def same(a, b) -> bool:
    """Same scores in the same order, same points; exact ties (equal vectors) may come in another order,
    and at the cut (the k-th score) either of the tied points may be the one kept."""
    def rows(hits):
        return [(round(h.score, 5), h.payload["object_id"]) for h in hits]
    mine, theirs = rows(a), rows(b)
    if [s for s, _ in mine] != [s for s, _ in theirs]:
        return False
    cut = mine[-1][0] if mine else None
    return sorted(r for r in mine if r[0] != cut) == sorted(r for r in theirs if r[0] != cut)


def test_each_app_has_its_own_collection(owner):
    settings, vectors = owner
    if not vectors.per_app:
        assert vectors.collection("elements", "com.a.calendar") == "elements"
        assert vectors.packages() == sorted(APPS)
        return
    for package, texts in APPS.items():
        name = vectors.collection("elements", package)
        assert vectors.client.count(name).count == 2 * len(texts)
        got, _ = vectors.client.scroll(name, limit=100, with_payload=["package"])
        assert {p.payload["package"] for p in got} == {package}
    assert vectors.packages() == sorted(APPS)


def test_snapshots_equal_the_qdrant_contents(owner, embedder):
    """Congruence: every read the planner, recall, hints and app choice make gives the same answer."""
    settings, vectors = owner
    reader = SnapshotVectors(settings.snapshot_path, embedder.dim)
    assert reader.packages() == vectors.packages() == sorted(APPS)
    for kind in ("elements", "tasks", "screens"):
        assert reader.count(kind) == vectors.count(kind)
        assert reader.values(kind, "text") == vectors.values(kind, "text")
        for package in APPS:
            mine, theirs = reader.points(kind, [package]), vectors.points(kind, [package])
            assert [p for _, p in mine] == [p for _, p in theirs]
            assert np.allclose(np.asarray([v for v, _ in mine]).reshape(-1, embedder.dim),
                               np.asarray([v for v, _ in theirs]).reshape(-1, embedder.dim), atol=1e-6)
    for query in QUERIES:
        vector = embedder.query(query)
        for args in ({}, {"packages": ["com.b.notes"]}, {"packages": ["com.a.calendar", "org.c.clock"]},
                     {"risky": True}, {"app_version": "1"}, {"distinct": "element_id"},
                     {"distinct": "element_id", "packages": ["com.a.calendar"], "risky": False}):
            for k in (1, 3, 20):
                assert same(reader.search("elements", vector, k, **args), vectors.search("elements", vector, k, **args))
        assert same(reader.search("tasks", vector, 8), vectors.search("tasks", vector, 8))


def test_loading_one_app_reads_only_that_app(owner, embedder):
    settings, vectors = owner
    reader = SnapshotVectors(settings.snapshot_path, embedder.dim)
    index = ElementIndex.load(reader, ["com.b.notes"])
    assert reader.files_read == ["com.b.notes"]  # no other app's file was opened
    assert {p["package"] for p in index.payloads} == {"com.b.notes"}
    theirs = ElementIndex.load(vectors, ["com.b.notes"])
    assert index.payloads == theirs.payloads and np.allclose(index.matrix, theirs.matrix, atol=1e-6)
    reader.search("tasks", embedder.query("new note"), 5, packages=["com.b.notes"])
    assert reader.files_read == ["com.b.notes"]  # read once, kept while the file is unchanged


def test_a_change_publishes_a_new_version_and_leaves_other_apps_untouched(owner, embedder):
    settings, vectors = owner
    reader = SnapshotVectors(settings.snapshot_path, embedder.dim)
    before = {p: (reader.version(p), snapshot_path(settings.snapshot_path, p).stat().st_mtime_ns) for p in APPS}
    vectors.delete_screens("elements", ["com.a.calendar/s0"], ["com.a.calendar"])
    assert vectors.dirty == {"com.a.calendar"}
    assert publish(vectors) == ["com.a.calendar"]
    assert reader.version("com.a.calendar") != before["com.a.calendar"][0]
    assert reader.count("elements", ["com.a.calendar"]) == vectors.count("elements", ["com.a.calendar"]) == 4
    for package in ("com.b.notes", "org.c.clock"):
        assert (reader.version(package), snapshot_path(settings.snapshot_path, package).stat().st_mtime_ns) == \
            before[package]
    assert publish(vectors, ["com.b.notes"]) == []  # same content: same file
    vectors.delete_packages(["org.c.clock"])  # a purge: the app's collections and snapshot go
    assert publish(vectors) == ["org.c.clock"]
    assert reader.packages() == vectors.packages() == ["com.a.calendar", "com.b.notes"]
    assert reader.search("elements", embedder.query("set an alarm"), 3, packages=["org.c.clock"]) == []
    assert not list(settings.snapshot_path.glob(".*partial"))  # written atomically, nothing left over


def test_another_process_reads_while_the_owner_holds_the_folder(owner, embedder):
    settings, _ = owner
    with pytest.raises(ConfigError, match="one process per folder"):
        open_qdrant(settings)
    code = ("import json, sys; from appmem.settings import Settings; from semantic.embedder import Embedder;"
            "from semantic.snapshots import open_reader; s = Settings.from_env({'APPMEM_HOME': sys.argv[1]});"
            "e = Embedder(s.home, threads=1); r = open_reader(s, e.dim);"
            "print(json.dumps([h.payload['object_id'] for h in r.search('elements', e.query('new note'), 2,"
            " packages=['com.b.notes'])]))")
    done = subprocess.run([sys.executable, "-c", code, str(settings.home)], capture_output=True, text=True,
                          cwd=REPO, timeout=120)
    assert done.returncode == 0, done.stderr
    assert sorted(json.loads(done.stdout.strip().splitlines()[-1])) == ["com.b.notes/e1", "com.b.notes/e1#1"]


def test_the_reader_never_writes(owner, embedder):
    settings, _ = owner
    reader = open_reader(settings, embedder.dim)
    with pytest.raises(ConfigError, match="read-only"):
        reader.upsert("elements", app_points(embedder, "com.x", ["OK"]))
    with pytest.raises(ValueError, match="unknown collection"):
        reader.search("nope", embedder.query("OK"))


def test_a_fresh_store_deletes_before_it_ever_wrote(embedder, tmp_path):
    """The first call of a store may be a delete (summarize refreshes screens first): it creates what it needs."""
    for per_app in (True, False):
        vectors = VectorStore(open_qdrant(Settings(home=tmp_path / str(per_app))), embedder.dim, per_app=per_app)
        try:
            vectors.delete_screens("elements", ["s1"], ["com.a"])
            vectors.delete("tasks", ["t1"], ["com.a"])
            assert vectors.count("elements", ["com.a"]) == 0
        finally:
            vectors.close()


def test_a_folder_with_shared_collections_is_split_per_app(embedder, tmp_path):
    """Stores written before per-app collections: the first owner moves each app's points to its own."""
    settings = Settings(home=tmp_path)
    client = open_qdrant(settings)
    client.create_collection("elements", vectors_config=models.VectorParams(size=embedder.dim,
                                                                            distance=models.Distance.COSINE))
    points = [p for package, texts in APPS.items() for p in app_points(embedder, package, texts)]
    client.upsert("elements", [models.PointStruct(id=point_id("elements", p.object_id), vector=p.vector,
                                                  payload=p.payload()) for p in points])
    vectors = VectorStore(client, embedder.dim, settings.snapshot_path)
    try:
        assert not client.collection_exists("elements")
        assert vectors.count("elements") == len(points)
        assert vectors.count("elements", ["org.c.clock"]) == 2 * len(APPS["org.c.clock"])
        assert sorted(publish(vectors)) == sorted(APPS)
    finally:
        client.close()
