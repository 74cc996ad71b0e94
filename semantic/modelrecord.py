"""Which embedding model made a memory's vectors: recorded where they are stored, checked by every process that opens them.

Vectors of two models do not match, even at one size (minilm and minilm-dq both give 384 dims): a memory
summarised with one and queried with the other would answer wrong plans without a word. So the memory
records its model, `{"model": "minilm", "model_id": <Embedder.model_id>}` (semantic/embedder.py `model_id`):
- in the vector store, as the metadata of a collection of its own, `embedding_model`, that holds no point:
  on a Qdrant server beside the shared collections, in local mode in the root folder beside the apps'
  folders (semantic/appfolders.py). A purge drops only its apps' points or collections, so the record stays;
- in each app's snapshot (semantic/snapshots.py, its `meta`), for the processes that read only those.

A writer (`appmem summarize`, the process that owns the vectors) checks the record when it opens the store
and writes it where there is none; a reader (a serve worker, the CLI, a reader of a Qdrant server) checks
it when it opens, and the snapshot reader checks each app's file again as it loads it. A memory of
another model is a ConfigError naming both models and the ways out: set APPMEM_EMBED_MODEL to the
memory's model, or embed the memory again with the configured one (`appmem summarize --reembed`).

A memory written before models were recorded has no record: its vectors are taken as the default
model's of their size (`LEGACY`: minilm at 384 dims, mpnet at 768), and its first writer records that.
A store that holds no vector yet (a new memory) takes the model of whoever writes first.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from appmem.errors import ConfigError
from appmem.lazy import LazyModule
from appmem.semantic.embedder import DIMS, model_id

if TYPE_CHECKING:
    from qdrant_client import QdrantClient

models = LazyModule("qdrant_client.models")

RECORD = "embedding_model"  # the collection whose metadata is the record (its name has no `__`: no app's)
LEGACY = {DIMS["minilm"]: "minilm", DIMS["mpnet"]: "mpnet"}  # what a memory without a record was made by
REEMBED = "appmem summarize --reembed"

Record = dict[str, str]  # {"model": a name of MODELS, "model_id": what makes its vectors}


def record_of(model: str) -> Record:
    return {"model": model, "model_id": model_id(model)}


def legacy_record(dim: int) -> Record:
    """The model a memory without a record is taken to be made by, from the size of its vectors."""
    if dim in LEGACY:
        return record_of(LEGACY[dim])
    return {"model": f"an unknown model of {dim} dims", "model_id": f"unknown|{dim}"}


def stored(client: "QdrantClient | Any") -> Record | None:
    """The record the vector store holds, None where it holds none."""
    if not client.collection_exists(RECORD):
        return None
    meta = client.get_collection(RECORD).config.metadata or {}
    return {"model": str(meta["model"]), "model_id": str(meta["model_id"])} if "model_id" in meta else None


def stamp(client: "QdrantClient | Any", record: Record) -> None:
    """Write `record` as the vector store's (its collection holds no point: a vector size of 1 is enough)."""
    if client.collection_exists(RECORD):
        client.update_collection(RECORD, metadata=record)
    else:
        client.create_collection(RECORD, vectors_config=models.VectorParams(size=1, distance=models.Distance.COSINE),
                                 metadata=record)


def check(where: str, memory: Record, configured: str, legacy: bool = False) -> None:
    """Raise ConfigError unless the memory's vectors (`memory`, found in `where`) are `configured`'s."""
    if memory["model_id"] == model_id(configured):
        return
    unrecorded = (" (it records no model: written before models were recorded, it is taken as the default "
                  "model of its vector size)") if legacy else ""
    if memory["model"] == configured:  # one name, another file or length: the pinned model changed since
        use = f"{configured} is now another model file ({model_id(configured)})"
    else:
        use = f"set APPMEM_EMBED_MODEL={memory['model']} to use this memory as it is"
    raise ConfigError(
        f"{where}: this memory's vectors were made by the embedding model {memory['model']}{unrecorded}, "
        f"but APPMEM_EMBED_MODEL is {configured}, whose vectors do not match them: {use}, or embed the "
        f"memory again with {configured}: `APPMEM_EMBED_MODEL={configured} {REEMBED}` (nothing in the "
        "graph is lost; restart the processes that serve it afterwards)")


def check_snapshot(path: Path, meta: dict[str, Any], configured: str) -> None:
    """Raise ConfigError unless the snapshot at `path` (its `meta`) holds `configured`'s vectors."""
    where = f"the vector snapshot {path}"
    if "model_id" in meta:
        check(where, {"model": str(meta.get("model")), "model_id": str(meta["model_id"])}, configured)
    else:
        check(where, legacy_record(int(meta.get("dim") or 0)), configured, legacy=True)
