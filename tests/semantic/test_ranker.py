"""Element meaning, synthetic tasks and the learned ranker, on the real stack: two twin apps'
DroidBot recordings (twins replay these recordings: the answers below are the recordings' own)."""
from __future__ import annotations

import numpy as np
import pytest

from appmem.graph.vocabulary import CONFIRM_WORDS, head, humanize, label_of
from appmem.ingest.droidbot import read_recording, recording_trace
from appmem.ingest.pipeline import ingest_trace
from appmem.semantic.embedder import Embedder
from appmem.semantic.meaning import describe, meaning
from appmem.semantic.pipeline import load_contexts, summarize
from appmem.semantic.ranker import Ranker, installed, pairs
from appmem.semantic.ranking import ElementIndex
from appmem.semantic.summaries import DeterministicSummarizer
from appmem.semantic.synthetic import tasks_of_app
from appmem.semantic.training import app_examples, train
from appmem.semantic.vectors import VectorStore, open_qdrant
from tests.conftest import DROIDBOT

APPS = ("anupam.acrylic", "bluepie.ad_silence")


@pytest.fixture(scope="module")
def memory(store, settings):
    while store.write("delete_all")[0]["deleted"]:
        pass
    packages = []
    for app in APPS:
        trace = recording_trace(read_recording(DROIDBOT / app))
        ingest_trace(store, trace, chunk_size=100)
        packages.append(trace.package)
    client = open_qdrant(settings)
    embedder = Embedder(settings.home)
    vectors = VectorStore(client, embedder.dim)
    summarize(store, vectors, embedder, DeterministicSummarizer(), packages)
    yield store, vectors, embedder, packages
    client.close()


def test_an_element_means_what_it_opens(memory):
    store, _, _, packages = memory
    contexts, _ = load_contexts(store, [packages[0]])
    opening = [(c, e) for c in contexts for e in c.elements
               if any(d.screen_id != c.id and d.title for d in c.destinations.get(e.id, []))]
    assert opening, "the recording has elements seen to lead to a titled screen"
    for ctx, e in opening:
        parts = meaning(ctx, e)
        d = next(d for d in ctx.destinations[e.id] if d.screen_id != ctx.id)
        title = head(humanize(d.title))
        if title.lower() != head(label_of(e)).lower():
            assert title in parts["effect"], (parts, title)
        assert describe(parts).startswith(parts["label"])
        assert "opens" not in describe(parts, ("label", "role", "screen"))


def test_synthetic_tasks_have_known_answers_and_are_reproducible(memory):
    store, vectors, embedder, packages = memory
    contexts, _ = load_contexts(store, [packages[0]])
    tasks = tasks_of_app(contexts, seed=3)
    assert tasks == tasks_of_app(contexts, seed=3) and tasks != tasks_of_app(contexts, seed=4)
    by_id = {e.id: (c, e) for c in contexts for e in c.elements}
    assert {t.kind for t in tasks} >= {"label", "effect", "confirm"}
    for t in tasks:
        assert t.answers and t.answers <= by_id.keys()
        if t.kind == "label":  # a label task names its one answer
            (only,) = t.answers
            assert head(label_of(by_id[only][1])) in t.text
        if t.kind == "confirm":  # "X and confirm": the confirm of a screen X was seen to open
            assert all(head(label_of(by_id[a][1])).lower() in CONFIRM_WORDS for a in t.answers)
            assert any(d.screen_id == by_id[a][0].id for c in contexts for e in c.elements
                       if head(label_of(e)) in t.text for d in c.destinations.get(e.id, []) for a in t.answers)
        if t.kind == "effect":  # "open X": every answer was seen to lead to a screen titled X
            for a in t.answers:
                ctx, _ = by_id[a]
                assert any(head(humanize(d.title)) in t.text for d in ctx.destinations[a])
    # The memory's own ranking finds most label tasks' answers among its five best.
    index = ElementIndex.load(vectors, [packages[0]])
    label = [t for t in tasks if t.kind == "label"][:60]
    found = [bool({h.payload["element_id"] for h in index.search(v, t.text, 5)} & t.answers)
             for t, v in zip(label, embedder.embed([t.text for t in label]))]
    assert sum(found) >= 0.5 * len(found)


def test_the_ranker_trains_on_a_small_memory_reproducibly(memory, tmp_path):
    store, vectors, embedder, packages = memory
    first = train(store, vectors, embedder, tmp_path / "a", packages)
    again = train(store, vectors, embedder, tmp_path / "b", packages)
    assert first["trained"] and set(first["apps"]) == set(packages) and first["rows"] > 0
    assert first["commit"] and first["date"] and "synthetic" in first["training_data"]
    assert (tmp_path / "a" / "ranker" / "model.pkl").exists()
    ranker = installed(tmp_path / "a")
    assert isinstance(ranker, Ranker) and ranker.provenance["apps"] == first["apps"] == again["apps"]
    index = ElementIndex.load(vectors, [packages[1]], ranker)
    other = ElementIndex.load(vectors, [packages[1]], Ranker.load(tmp_path / "b" / "ranker"))
    for text in ("open the settings", "turn on dark mode", "about"):
        vector = embedder.query(text)
        mine, theirs = index.search(vector, text, 5), other.search(vector, text, 5)
        assert [h.payload["element_id"] for h in mine] == [h.payload["element_id"] for h in theirs]
        assert np.all(np.diff([h.score for h in mine]) <= 0), "scores stay in order"
    assert installed(tmp_path / "nothing") is None


def test_a_pairwise_ranker_learns_from_pairs_of_one_tasks_candidates(memory, tmp_path):
    store, vectors, embedder, packages = memory
    x, y, n, groups = app_examples(store, vectors, embedder, packages[0])
    assert n and len(x) == len(y) == len(groups) and set(np.unique(y)) == {0, 1}
    dx, dy = pairs(x, y, groups)  # right minus wrong within one task, and the reverse
    assert len(dx) == 2 * sum(int((y[groups == g] == 1).sum() * (y[groups == g] == 0).sum()) for g in np.unique(groups))
    assert dy.sum() * 2 == len(dy)
    made = train(store, vectors, embedder, tmp_path, packages, kind="pairwise")
    assert made["trained"] and made["model"] == "pairwise"
    ranker = installed(tmp_path)
    index = ElementIndex.load(vectors, [packages[0]], ranker)
    text = "open the settings"
    hits = index.search(embedder.query(text), text, 5)
    assert len(hits) == 5 and np.all(np.diff([h.score for h in hits]) <= 0)
    # the model scores a right answer of its own training tasks above most wrong ones
    p = ranker.model.predict_proba(x)[:, 1]
    assert p[y == 1].mean() > p[y == 0].mean()
