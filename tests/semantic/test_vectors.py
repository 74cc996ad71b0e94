"""The real embedding model (assembled from the pinned wheels) and real Qdrant local mode."""
from __future__ import annotations

import math

import pytest

from appmem.errors import ConfigError
from appmem.settings import Settings
from appmem.semantic.embedder import DIM, Embedder, model_folder
from appmem.semantic.points import VectorPoint, point_id
from appmem.semantic.vectors import VectorStore, open_qdrant


@pytest.fixture(scope="module")
def embedder(tmp_path_factory) -> Embedder:
    return Embedder(tmp_path_factory.mktemp("home"), threads=2)


def cos(a, b):
    return sum(x * y for x, y in zip(a, b))


def test_embeddings_are_real_and_normalised(embedder):
    a, b, c = embedder.embed(["delete all events", "remove every calendar event", "change the font size"])
    assert len(a) == DIM and math.isclose(cos(a, a), 1.0, abs_tol=1e-3)
    assert cos(a, b) > 0.6 > 0.2 > cos(a, c)
    assert embedder.embed([]) == []


def test_model_folder_is_assembled_and_checked(embedder, tmp_path):
    folder = model_folder(tmp_path)
    assert (folder / "model.onnx").exists()
    assert '"model_max_length": 256' in (folder / "tokenizer_config.json").read_text()
    (folder / "model.onnx").write_bytes(b"tampered")
    with pytest.raises(ConfigError, match="model.onnx: sha256"):
        model_folder(tmp_path)


def test_vector_store_upserts_idempotently_and_filters(embedder, tmp_path):
    settings = Settings(home=tmp_path)
    client = open_qdrant(settings)
    try:
        with pytest.raises(ConfigError, match="one process per folder"):
            open_qdrant(settings)
        store = VectorStore(client, embedder.dim)
        texts = ["delete all events", "change the font size", "delete the contact"]
        vecs = embedder.embed(texts)
        points = [VectorPoint("e1", vecs[0], "com.a", "1", "s1", "e1", True, texts[0]),
                  VectorPoint("e2", vecs[1], "com.a", "1", "s1", "e2", False, texts[1]),
                  VectorPoint("e3", vecs[2], "com.b", "1", "s2", "e3", True, texts[2])]
        store.upsert("elements", points)
        store.upsert("elements", points)
        assert store.count("elements") == 3
        query = embedder.embed(["remove all calendar events"])[0]
        assert store.search("elements", query, k=1)[0].payload["element_id"] == "e1"
        only_b = store.search("elements", query, k=3, packages=["com.b"])
        assert [h.payload["element_id"] for h in only_b] == ["e3"]
        assert {h.payload["element_id"] for h in store.search("elements", query, k=3, risky=False)} == {"e2"}
        store.upsert("elements", [VectorPoint("e1#1", vecs[0], "com.a", "1", "s1", "e1", True, "variant")])
        distinct = store.search("elements", query, k=3, distinct="element_id")
        assert [h.payload["element_id"] for h in distinct].count("e1") == 1 and len(distinct) == 3
        store.delete_screens("elements", ["s1"])
        assert store.count("elements") == 1
        assert point_id("elements", "e1") == point_id("elements", "e1") != point_id("screens", "e1")
    finally:
        client.close()
