"""The `minilm-dq` model: the pinned int8 file rewritten to multiply in integers, assembled deterministically,
checked by its pinned hash, and agreeing with the weight-only model it comes from. Real model files."""
from __future__ import annotations

import numpy as np
import onnx
import pytest

from appmem.errors import ConfigError
from appmem.semantic.embedder import (MODEL_INTEGER_SHA256, MODEL_NAME, MODEL_SHA256, Embedder, model_folder,
                                      sha256_of)
from appmem.settings import Settings

TEXTS = ["Delete all events", "OK", "Open the settings and turn on the dark theme", "Brush size",
         "select Save tabs to collection", "turn on Create shortcut as root"]


@pytest.fixture(scope="module")
def integer(tmp_path_factory) -> Embedder:
    return Embedder(tmp_path_factory.mktemp("home"), threads=1, cache=False, model="minilm-dq")


def test_the_rewritten_file_is_the_same_bytes_every_time_and_its_hash_is_checked(integer, tmp_path):
    folder = model_folder(tmp_path, integer=True)
    assert sha256_of(folder / "model.onnx") == sha256_of(integer.folder / "model.onnx") == MODEL_INTEGER_SHA256
    assert folder.name != model_folder(tmp_path).name  # its own folder: the weight-only file stays as it is
    (folder / "model.onnx").write_bytes(b"tampered")
    with pytest.raises(ConfigError, match="model.onnx: sha256 .* delete the file"):
        model_folder(tmp_path, integer=True)
    (folder / "model.onnx").unlink()
    assert sha256_of(model_folder(tmp_path, integer=True) / "model.onnx") == MODEL_INTEGER_SHA256


def test_every_weight_product_is_an_integer_one(integer):
    ops = [node.op_type for node in onnx.load(str(integer.folder / "model.onnx")).graph.node]
    assert ops.count("MatMulInteger") == ops.count("DynamicQuantizeLinear") == 36  # 6 layers x Q, K, V, out, 2 FFN
    assert ops.count("MatMul") == 12  # attention: scores and weighted values, two activations each
    assert "Cast" in ops and not any(op.startswith("Dequantize") for op in ops)


def test_its_vectors_agree_with_the_weight_only_model_and_have_their_own_id(integer, tmp_path):
    float_products = Embedder(tmp_path, threads=1, cache=False)
    a, b = np.asarray(integer.embed(TEXTS)), np.asarray(float_products.embed(TEXTS))
    assert a.shape == b.shape == (len(TEXTS), 384)
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-4)
    agreement = (a * b).sum(axis=1)
    assert agreement.min() > 0.97 and agreement.mean() > 0.985
    assert not np.allclose(a, b, atol=1e-4)  # another model: another cache key
    assert integer.model_id == f"{MODEL_NAME}|{MODEL_INTEGER_SHA256}|256" != float_products.model_id
    assert MODEL_SHA256 in float_products.model_id


def test_the_model_is_chosen_by_the_setting(tmp_path):
    settings = Settings.from_env({"APPMEM_HOME": str(tmp_path), "APPMEM_EMBED_MODEL": " MiniLM-DQ "})
    assert settings.embed_model == "minilm-dq"
    assert Embedder(tmp_path, cache=False, model=settings.embed_model).dim == 384
