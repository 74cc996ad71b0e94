"""A memory records which embedding model made its vectors, and every process that opens them checks it:
minilm and minilm-dq both give 384 dims, so only the record tells their vectors apart. Real models (tiny
memories of a few texts), real Qdrant local mode, the real CLI."""
from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

from appmem.errors import ConfigError
from appmem.settings import Settings
from appmem.semantic import modelrecord
from appmem.semantic.embedder import Embedder, model_id
from appmem.semantic.points import VectorPoint
from appmem.semantic.snapshots import SnapshotVectors, check_model, open_reader, publish, read_meta, snapshot_path
from appmem.semantic.vectors import VectorStore, open_qdrant, open_vectors
from tests.conftest import REPO

APPS = {"com.model.calendar": ["delete all events", "add an event", "open settings"],
        "com.model.notes": ["delete the note", "create a note", "search notes"]}
REFUSED = r"made by the embedding model minilm, but APPMEM_EMBED_MODEL is minilm-dq.*APPMEM_EMBED_MODEL=minilm to " \
          r"use this memory.*`APPMEM_EMBED_MODEL=minilm-dq appmem summarize --reembed`"


@pytest.fixture(scope="module")
def minilm(tmp_path_factory) -> Embedder:
    return Embedder(tmp_path_factory.mktemp("models"), threads=1, cache=False)


@pytest.fixture(scope="module")
def dq(minilm) -> Embedder:
    return Embedder(minilm.home, threads=1, cache=False, model="minilm-dq")


def points(embedder: Embedder, apps: dict[str, list[str]] = APPS) -> list[VectorPoint]:
    return [VectorPoint(f"{package}/e{i}", vector, package, element_id=f"{package}/e{i}", text=text)
            for package, texts in apps.items() for i, (text, vector) in enumerate(zip(texts, embedder.embed(texts)))]


def build(settings: Settings, embedder: Embedder, reembed: bool = False) -> None:
    """What `appmem summarize` does to the vectors: open them as their owner, write, publish."""
    vectors = open_vectors(settings, embedder.dim, reembed=reembed)
    try:
        vectors.upsert("elements", points(embedder))
        publish(vectors)
    finally:
        vectors.close()


@pytest.fixture
def memory(tmp_path, minilm) -> Settings:
    """A memory of two apps embedded with minilm (the default model)."""
    settings = Settings(home=tmp_path)
    build(settings, minilm)
    return settings


def as_dq(settings: Settings) -> Settings:
    return replace(settings, embed_model="minilm-dq")


def top(reader, embedder: Embedder, text: str) -> str:
    return reader.search("elements", embedder.query(text), k=1)[0].payload["text"]


def test_a_minilm_memory_refuses_minilm_dq_everywhere_and_loses_nothing(memory, minilm):
    with pytest.raises(ConfigError, match=REFUSED):
        open_vectors(as_dq(memory), 384)
    with pytest.raises(ConfigError, match="the vector snapshot .*npz: this memory's vectors were " + REFUSED):
        open_reader(as_dq(memory), 384)
    with pytest.raises(ConfigError, match=REFUSED):
        check_model(as_dq(memory))
    check_model(memory)
    reader = open_reader(memory, 384)
    assert reader.count("elements") == 6 and top(reader, minilm, "remove every event") == "delete all events"
    owner = open_vectors(memory, 384)
    try:
        assert owner.record == modelrecord.stored(owner.client) == modelrecord.record_of("minilm")
        assert owner.count("elements") == 6
    finally:
        owner.close()
    for package in APPS:
        assert read_meta(snapshot_path(memory.snapshot_path, package))["model_id"] == minilm.model_id


def test_the_vector_store_names_the_memory_and_the_configured_model(memory):
    with pytest.raises(ConfigError) as refused:
        open_vectors(as_dq(memory), 384)
    message = str(refused.value)
    assert message.startswith(f"the vector store {memory.qdrant_path}: this memory's vectors were made by the "
                              "embedding model minilm, but APPMEM_EMBED_MODEL is minilm-dq")
    assert "\n" not in message and "Traceback" not in message


def test_the_model_ids_are_the_embedders_own(minilm, dq):
    assert model_id("minilm") == minilm.model_id != model_id("minilm-dq") == dq.model_id
    with pytest.raises(ConfigError, match="APPMEM_EMBED_MODEL='bert': expected one of minilm, minilm-dq, mpnet"):
        model_id("bert")


def test_a_purge_of_apps_keeps_the_record_until_no_vector_is_left(memory, dq):
    owner = open_vectors(memory, 384, check=False)  # as a purge opens them
    try:
        owner.delete_packages(["com.model.calendar"])
        publish(owner)
    finally:
        owner.close()
    with pytest.raises(ConfigError, match=REFUSED):
        open_vectors(as_dq(memory), 384)  # the notes app is still minilm's
    assert read_meta(snapshot_path(memory.snapshot_path, "com.model.notes"))["model"] == "minilm"
    owner = open_vectors(memory, 384, check=False)
    try:
        owner.delete_packages(["com.model.notes"])
        publish(owner)
    finally:
        owner.close()
    build(as_dq(memory), dq)  # no vector of any model left: the next writer's model is the memory's
    reader = open_reader(as_dq(memory), 384)
    assert top(reader, dq, "remove every event") == "delete all events"
    with pytest.raises(ConfigError, match="made by the embedding model minilm-dq, but APPMEM_EMBED_MODEL is minilm,"):
        open_reader(memory, 384)


def test_reembed_drops_every_vector_and_records_the_new_model(memory, minilm, dq):
    reader = open_reader(memory, 384)  # a serve worker that opened before
    assert top(reader, minilm, "new note") == "create a note"
    owner = open_vectors(as_dq(memory), 384, reembed=True)
    try:
        assert owner.vector_collections() == [] and owner.record == modelrecord.record_of("minilm-dq")
        assert owner.dirty == set(APPS)
    finally:
        owner.close()
    build(as_dq(memory), dq)
    assert top(open_reader(as_dq(memory), 384), dq, "new note") == "create a note"
    with pytest.raises(ConfigError, match="com.model.notes.npz: this memory's vectors were made by the embedding "
                                          "model minilm-dq, but APPMEM_EMBED_MODEL is minilm,"):
        reader.search("elements", minilm.query("new note"), k=1, packages=["com.model.notes"])


def test_a_memory_written_before_records_is_the_default_models_of_its_size(tmp_path, minilm):
    """No record (vectors written before models were recorded): minilm's at 384 dims, and its first writer
    records so; mpnet's at 768."""
    settings = Settings(home=tmp_path)
    old = VectorStore(open_qdrant(settings), 384, settings.snapshot_path)  # as every writer opened them before
    try:
        old.upsert("elements", points(minilm))
        publish(old)
    finally:
        old.close()
    assert "model" not in read_meta(snapshot_path(settings.snapshot_path, "com.model.notes"))
    with pytest.raises(ConfigError, match="minilm \\(it records no model: written before models were recorded"):
        open_reader(as_dq(settings), 384)
    with pytest.raises(ConfigError, match="minilm \\(it records no model.*is minilm-dq"):
        open_vectors(as_dq(settings), 384)
    assert top(open_reader(settings, 384), minilm, "new note") == "create a note"
    owner = open_vectors(settings, 384)
    try:
        assert modelrecord.stored(owner.client) == modelrecord.record_of("minilm")
    finally:
        owner.close()

    wide = Settings(home=tmp_path / "mpnet", embed_model="mpnet")
    old = VectorStore(open_qdrant(wide), 768, wide.snapshot_path)
    try:
        vector = np.full(768, 768 ** -0.5).tolist()
        old.upsert("elements", [VectorPoint("e", vector, "com.model.wide")])
        publish(old)
    finally:
        old.close()
    assert SnapshotVectors(wide.snapshot_path, 768, "mpnet").count("elements") == 1
    owner = open_vectors(wide, 768)
    try:
        assert owner.record == modelrecord.stored(owner.client) == modelrecord.record_of("mpnet")
    finally:
        owner.close()
    with pytest.raises(ConfigError, match="model mpnet \\(it records no model.*is minilm,"):
        open_reader(replace(wide, embed_model="minilm"), 384)


def test_a_servers_layout_keeps_its_record_through_purges_and_reembeds(tmp_path, minilm, dq):
    """The shared collections of a Qdrant server (run on local mode: no server here): a purge deletes points and
    keeps the collections; --reembed drops them, to make them again at the new model's size."""
    settings = Settings(home=tmp_path)
    shared = VectorStore(open_qdrant(settings), 384, per_app=False)
    try:
        shared.claim_model("minilm")
        shared.upsert("elements", points(minilm))
        shared.delete_packages(["com.model.calendar"])
        assert sorted(shared.vector_collections()) == ["elements", "screens", "tasks"]  # kept, emptied of the app
        with pytest.raises(ConfigError, match=REFUSED):
            shared.claim_model("minilm-dq", write=False)
        shared.drop_all()
        shared.claim_model("minilm-dq")
        shared.upsert("elements", points(dq))
        assert shared.count("elements") == 6 and modelrecord.stored(shared.client)["model"] == "minilm-dq"
        with pytest.raises(ConfigError, match="made by the embedding model minilm-dq, but APPMEM_EMBED_MODEL is minilm,"):
            shared.claim_model("minilm")
    finally:
        shared.close()


def cli(settings: Settings, *args: str, model: str = "minilm-dq") -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "APPMEM_HOME": str(settings.home), "APPMEM_EMBED_MODEL": model}
    return subprocess.run([sys.executable, "-m", "appmem.cli", *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=120)


def test_the_cli_refuses_another_model_in_one_line_before_reading_anything(memory):
    """`appmem search` and `appmem summarize` check the vectors before they reach the graph (no graph server
    here): exit 2, one line naming both models and what to do, --json's error on stdout."""
    for args in (["search", "delete all events", "--json"], ["summarize", "--json"]):
        run = cli(memory, *args)
        assert run.returncode == 2, run.stderr
        (line,) = run.stderr.strip().splitlines()
        assert line.startswith("appmem: error: the vector ") and "made by the embedding model minilm, but " \
            "APPMEM_EMBED_MODEL is minilm-dq" in line and "appmem summarize --reembed" in line, line
        assert json.loads(run.stdout)["error"] == "ConfigError"
    both = cli(memory, "summarize", "--reembed", "--app", "calendar")
    assert both.returncode == 2 and "--reembed: it embeds every app again: leave out --app" in both.stderr
    assert open_reader(memory, 384).count("elements") == 6  # nothing was dropped


def test_a_reader_of_a_new_memory_does_not_reach_for_the_folder_its_writer_holds(tmp_path):
    """The record lives in the local folder's root, where vectors written before snapshots lived: a reader that
    finds no snapshot yet still reads the (empty) snapshots instead of opening the folder to publish them."""
    settings = Settings(home=tmp_path)
    owner = open_vectors(settings, 384)  # records minilm; publishes nothing yet
    try:
        assert (settings.qdrant_path / "meta.json").exists() and not settings.snapshot_path.exists()
        assert open_reader(settings, 384).count("elements") == 0
    finally:
        owner.close()


def test_an_ingest_worker_of_another_model_stores_the_contribution_and_says_why_its_layer_is_not_embedded(
        memory, caplog):
    """The worker embeds a tenant's layer after its contribution is stored: configured with another model than
    the memory's, it logs the mismatch and returns, so the contribution is finished as stored (no graph here:
    the check comes first)."""
    from appmem.workers.layers import LayerEmbedder

    with caplog.at_level("ERROR", logger="appmem.workers.layers"):
        assert LayerEmbedder(None, as_dq(memory))("acme", "com.model.notes") is None
    (record,) = caplog.records
    assert "tenant acme: its layer of com.model.notes is not embedded: the vector snapshot" in record.getMessage()
    assert "APPMEM_EMBED_MODEL is minilm-dq" in record.getMessage()
