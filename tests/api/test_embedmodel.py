"""A serving API whose memory is embedded again with another model (`appmem summarize --reembed` while it
runs) answers 503 `misconfigured` naming both models, not wrong hits; with its own model it answers.
Real models (a tiny memory of its own), real Qdrant local mode and snapshots, the API over the test stack."""
from __future__ import annotations

from dataclasses import replace

from fastapi.testclient import TestClient

from appmem.agent.service import Service
from appmem.api.app import create_app
from appmem.settings import Settings
from appmem.semantic.embedder import Embedder
from appmem.semantic.points import VectorPoint
from appmem.semantic.snapshots import open_reader, publish
from appmem.semantic.vectors import open_vectors

SCREENS = {"com.model.calendar": "a calendar month with its events", "com.model.notes": "a list of notes"}


def embed_memory(settings: Settings, embedder: Embedder, reembed: bool = False) -> None:
    vectors = open_vectors(settings, embedder.dim, reembed=reembed)
    try:
        vectors.upsert("screens", [VectorPoint(f"{p}/s", v, p, screen_id=f"{p}/s", text=t) for (p, t), v in
                                   zip(SCREENS.items(), embedder.embed(list(SCREENS.values())))])
        publish(vectors)
    finally:
        vectors.close()


def test_an_api_over_a_memory_embedded_again_with_another_model_answers_misconfigured(settings, store, bearer,
                                                                                        tmp_path):
    minilm = Embedder(tmp_path / "models", threads=1, cache=False)
    memory = Settings(home=tmp_path / "memory")
    embed_memory(memory, minilm)
    reader = open_reader(memory, minilm.dim)
    service = Service(store, reader, minilm, settings)  # the session's graph: only the vectors are this memory's
    headers = bearer()
    with TestClient(create_app(replace(settings, preload=False), service), raise_server_exceptions=False) as client:
        assert client.get("/v1/search", params={"text": "my events", "kind": "screen"}, headers=headers).status_code == 200
        dq = Embedder(tmp_path / "models", threads=1, cache=False, model="minilm-dq")
        embed_memory(replace(memory, embed_model="minilm-dq"), dq, reembed=True)
        answer = client.get("/v1/search", params={"text": "my events", "kind": "screen"}, headers=headers)
    reader.close()
    assert answer.status_code == 503, answer.text
    body = answer.json()
    assert body["error"] == "misconfigured"
    assert "made by the embedding model minilm-dq, but APPMEM_EMBED_MODEL is minilm," in body["detail"]
    assert "appmem summarize --reembed" in body["detail"]
