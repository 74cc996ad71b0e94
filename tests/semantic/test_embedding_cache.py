"""Each distinct text is embedded once across apps (a content-addressed vector cache), and a change
of model never reuses a vector of the old one. Real model, real stack, real DroidBot recordings
copied under a new package name: a renamed copy gets the very same texts, so the model runs on none."""
from __future__ import annotations

import numpy as np
import pytest

from appmem.ingest.droidbot import read_recording, recording_trace
from appmem.ingest.pipeline import ingest_trace
from appmem.semantic.embedder import Embedder, VectorCache, forget_apps
from appmem.semantic.pipeline import summarize
from appmem.semantic.summaries import DeterministicSummarizer
from appmem.semantic.vectors import open_vectors
from tests.conftest import DROIDBOT
from tests.shared_data import copy_recording

COPY = "org.example.copy"


# acrylic: small; onelist: screens reached by several ways, whose names, breadcrumbs and effects were once
# picked in the order of ids (which hash the package), so its copy got 31 texts of its own
@pytest.mark.parametrize("APP", ["anupam.acrylic", "com.lolo.io.onelist"])
def test_a_copy_of_an_app_is_embedded_from_the_cache(empty_graph, settings, tmp_path, APP):
    store = empty_graph
    for folder in (DROIDBOT / APP, copy_recording(DROIDBOT / APP, tmp_path / "copy", COPY)):
        ingest_trace(store, recording_trace(read_recording(folder)), 200)
    home = tmp_path / "home"
    embedder = Embedder(home, threads=2)
    vectors = open_vectors(type(settings)(**{**settings.__dict__, "home": home}), embedder.dim)
    try:
        first = summarize(store, vectors, embedder, DeterministicSummarizer(settings.risky_words), [APP])
        assert first.model_texts > 0 and first.embedded_texts >= first.model_texts
        again = summarize(store, vectors, embedder, DeterministicSummarizer(settings.risky_words), [COPY])
        assert again.screens_done == first.screens_done and again.embedded_texts == first.embedded_texts
        texts = {kind: {p["text"] for package in (APP, COPY) for _, p in vectors.points(kind, [package])}
                 for kind in ("elements", "screens")}
        copy = {p["text"] for kind in texts for _, p in vectors.points(kind, [COPY])}
        original = {p["text"] for kind in texts for _, p in vectors.points(kind, [APP])}
        # the copy's texts are the original's, every one of them came from the cache
        assert copy == original and again.model_texts == 0
        assert again.cached_texts == first.model_texts + first.cached_texts
        # the cached vectors are the model's: the copy's points equal the original's, text by text
        mine = {p["text"]: v for v, p in vectors.points("elements", [COPY])}
        theirs = {p["text"]: v for v, p in vectors.points("elements", [APP])}
        fresh = Embedder(tmp_path / "nocache", threads=2, cache=False)
        sample = sorted(mine.keys() & theirs.keys())[:20]
        assert np.allclose(np.asarray([mine[t] for t in sample]), np.asarray([theirs[t] for t in sample]), atol=1e-6)
        assert np.allclose(np.asarray([mine[t] for t in sample]), np.asarray(fresh.embed(sample)), atol=1e-5)
    finally:
        vectors.client.close()


def test_a_change_of_model_never_reuses_the_old_vectors(tmp_path):
    embedder = Embedder(tmp_path, threads=2)
    right = embedder.embed(["Delete all events", "OK"])
    assert embedder.computed == 2
    # another model (another file, pooling or length) writes its vectors into the same file
    other = VectorCache(tmp_path / "embeddings.sqlite", "another/model|0123|128")
    other.put({other.key("Delete all events"): np.ones(embedder.dim, dtype=np.float32)})
    assert other.get([other.key("OK")]) == {}  # the old model's vectors are not the new one's
    again = embedder.embed(["Delete all events", "OK", "OK"])
    assert again[:2] == right and again[2] == right[1] and embedder.cached == 2 and embedder.computed == 2
    # the model changes: its id does, so nothing is found and every vector is computed anew
    embedder.cache = VectorCache(tmp_path / "embeddings.sqlite", embedder.model_id + "|v2")
    assert embedder.embed(["Delete all events"]) == right[:1] and embedder.computed == 3
    assert embedder.query("Delete all events") == right[0]  # agents' tasks never go to the disk cache


def test_a_purge_forgets_the_cached_vectors_of_its_apps_texts_those_found_in_the_cache_too(tmp_path):
    """Texts embedded for two apps, one text of each computed for the other first: forgetting one app
    (a purge of a key that reported it) deletes every vector its texts used, and those of no known app,
    and no other; they are computed again when asked for."""
    embedder = Embedder(tmp_path, threads=2)
    embedder.embed(["Platypus quiver", "OK"], apps=["com.purged"])
    embedder.embed(["OK", "Echidna carnival"], apps=["com.kept"])  # "OK" found in the cache: used by both
    embedder.embed(["Numbat lantern"], apps=["com.kept"])
    assert (embedder.computed, embedder.cached) == (4, 1)
    legacy = embedder.cache.key("Kept before owners were")  # a vector cached with no owner: its app unknown
    embedder.cache.put({legacy: np.ones(embedder.dim, dtype=np.float32)})
    assert forget_apps(tmp_path, ["com.purged"]) == 3 and embedder.cache.get([legacy]) == {}
    cache = embedder.cache
    left = cache.get([cache.key(t) for t in ("Platypus quiver", "OK", "Echidna carnival", "Numbat lantern")])
    assert set(left) == {cache.key("Echidna carnival"), cache.key("Numbat lantern")}
    assert forget_apps(tmp_path, ["com.purged"]) == 0 and forget_apps(tmp_path, []) == 0
    embedder.embed(["OK"], apps=["com.kept"])
    assert embedder.computed == 5  # computed again, once
