"""A tenant's own vectors: its elements, screens and demonstrations, computed when its view loads an app.

The shared vector collections hold what the public may read only (`summarize`
reads through the public's trust predicate), so no tenant's words are ever in
them, the public's searches never meet them and a tenant purge has no vector of
its layer to find. A tenant's view (agent/service.py `viewing`, its planner's
`layer` and `own_tasks`) reads the public points of an app and adds what its own
graph view holds that they lack:
- elements, summarised from their UTG context without a model
  (semantic/summaries.py DeterministicSummarizer) and embedded as `summarize`
  embeds them (semantic/screenbatch.py `element_point`): their simulated task and
  their label part only (`summarize` also embeds the tasks an element completes
  and its screen and effect parts; a view embeds at its first plan, so it keeps
  to the two that rank most, and the ranking reads an element without some parts
  as it reads one that has none). The payloads carry the summarizer's `risky`,
  which the view's plans flag;
- screens only its keys reported, by their summary (semantic/screenbatch.py `screen_text`);
- demonstrations its keys sent, by their description (as semantic/pipeline.py `embed_tasks`).
The rows live in the view's memory only; `nearest` searches them as the vector
store searches a collection. Their texts' vectors are kept in the embedder's
cache under the tenant's namespace (semantic/embedder.py VectorCache: no other
reader's lookup meets them). The ingest worker computes a tenant's points of an
app after each of its keys' contributions (workers/layers.py), so that the view's
first load finds every vector there and embeds none; a tenant purge forgets them.
The work is proportional to the tenant's layer, which is what its keys reported.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from appmem.graph.model import Element
from appmem.graph.vocabulary import BACK_WORDS, label_of
from appmem.semantic.contexts import ScreenRow, TransitionRow, build_contexts
from appmem.semantic.embedder import Embedder
from appmem.semantic.meaning import label_part
from appmem.semantic.points import Hit, VectorPoint, best
from appmem.semantic.screenbatch import element_point, screen_text
from appmem.semantic.summaries import DeterministicSummarizer

Row = tuple[list[float], dict[str, Any]]  # (vector, payload), as VectorStore.points gives them


@dataclass
class Layer:
    """A tenant view's own points of some apps: element rows (for its element index) and screen rows."""

    elements: list[Row] = field(default_factory=list)
    screens: list[Row] = field(default_factory=list)


def layer_rows(screens: list[ScreenRow], elements: list[Element], transitions: list[TransitionRow],
               own: set[str], own_screens: set[str], embedder: Embedder, tenant: str) -> Layer:
    """The points of the elements `own` (ids) in their screens' contexts, and of the screens `own_screens`;
    their texts embedded under `tenant`'s namespace of the embedder's cache (semantic/embedder.py VectorCache)."""
    # each screen with the layer's elements alone (an own screen with all of its): the summarizer's work is
    # then the layer's, not the app's
    wanted = own_screens | {e.screen_id for e in elements if e.id in own}
    contexts = [replace(c, elements=[e for e in c.elements if e.id in own or c.id in own_screens])
                for c in build_contexts(screens, elements, transitions, wanted)]
    if not contexts:
        return Layer()
    items, screen_items = [], []
    for ctx, summary in zip(contexts, DeterministicSummarizer().summarize(contexts)):
        if ctx.id in own_screens:
            screen_items.append((ctx, summary, screen_text(summary)))
        infos = {e.id: e for e in ctx.elements}
        for es in summary.elements:
            if es.element_id in own and es.element_id in infos:
                e = infos[es.element_id]
                if label_of(e).lower() not in BACK_WORDS:
                    items += [(ctx, summary, e, es, 0, es.simulated_task), (ctx, summary, e, es, "label", label_part(e))]
    unique = list(dict.fromkeys([item[-1] for item in items] + [item[-1] for item in screen_items]))
    by_text = dict(zip(unique, embedder.embed(unique, namespace=tenant))) if unique else {}
    element_rows = [(list(by_text[text]), element_point(ctx, summary, e, by_text[text], text, es, variant).payload())
                    for ctx, summary, e, es, variant, text in items]
    screen_rows = [(list(by_text[text]), VectorPoint(
        object_id=ctx.id, vector=by_text[text], package=ctx.package, app_version=ctx.app_version, screen_id=ctx.id,
        risky=any(x.risky for x in summary.elements), text=text, extra={"screen_title": ctx.title}).payload())
        for ctx, summary, text in screen_items]
    return Layer(element_rows, screen_rows)


def layer_digest(screens: list[ScreenRow], elements: list[Element], transitions: list[TransitionRow],
                 own: Iterable[str], own_screens: Iterable[str], model: str) -> bytes:
    """What `layer_rows` computes its points from, as one digest: every field of the rows, the ids of the layer's
    elements and screens, the embedding model (`model`, the embedder's model id) and the code that computes
    them (`_code`). Equal digests: equal points."""
    h = hashlib.sha256(f"{_code()}\x1e{model}\x1e".encode())
    h.update("\x1f".join(sorted(own)).encode() + b"\x1e" + "\x1f".join(sorted(own_screens)).encode() + b"\x1e")
    for s in screens:
        h.update(f"{s.id}\x1f{s.package}\x1f{s.app_version}\x1f{s.activity}\x1f{s.title}\x1e".encode())
    for e in elements:
        b = e.bounds
        h.update("\x1f".join((e.id, e.screen_id, e.key, e.class_name, e.resource_id, e.text, e.content_desc,
                              f"{b.left},{b.top},{b.right},{b.bottom}", "\x1d".join(e.flags), "\x1d".join(e.locators),
                              "\x1e")).encode())
    for t in transitions:
        h.update(f"{t.source}\x1f{t.target}\x1f{t.element_id}\x1f{t.action}\x1e".encode())
    return h.digest()


@cache
def _code() -> str:
    """A digest of the code that turns a graph into points, the same in every process of an install: the source
    of the packages it lives in (semantic/: contexts, summaries, payloads, terms; graph/: labels and roles;
    formats/: what they read of a view), so that points kept by other code are not read."""
    h = hashlib.sha256()
    for package in ("semantic", "graph", "formats"):
        folder = Path(__file__).resolve().parents[1] / package
        for path in sorted(folder.glob("*.py")):
            h.update(f"{package}/{path.name}\x1e".encode() + path.read_bytes())
    return h.hexdigest()


def task_rows(rows: list[dict[str, Any]], embedder: Embedder, tenant: str) -> list[Row]:
    """The points of demonstrations (rows of cypher/layer_tasks.cypher), as `embed_tasks` writes them (their
    texts embedded under `tenant`'s namespace)."""
    rows = [r for r in rows if r["description"]]
    if not rows:
        return []
    out = []
    for r, vector in zip(rows, embedder.embed([r["description"] for r in rows], namespace=tenant)):
        steps = sorted(r["steps"], key=lambda s: s["index"])
        last = steps[-1] if steps else {}
        out.append((list(vector), VectorPoint(
            object_id=r["id"], vector=vector, package=r["package"], screen_id=last.get("screen_id") or "",
            element_id=last.get("element_id") or "", text=r["description"],
            extra={"task_id": r["id"], "steps": len(steps), "element_ids": [s["element_id"] for s in steps]}).payload()))
    return out


def nearest(rows: list[Row], kind: str, vector: list[float], k: int) -> list[Hit]:
    """The k rows nearest to `vector` by cosine, as hits of `kind` (the vector store's collections' metric)."""
    if not rows or k <= 0:
        return []
    matrix = np.asarray([v for v, _ in rows], dtype=np.float32)
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    query = np.asarray(vector, dtype=np.float32)
    scores = matrix @ (query / max(float(np.linalg.norm(query)), 1e-12))
    return best([Hit(kind, float(s), dict(p)) for s, (_, p) in zip(scores.tolist(), rows)], k)


def merged(shared: list[Hit], own: list[Hit], k: int) -> list[Hit]:
    """The k best of the shared collection's hits and a view's own, each point once."""
    seen = {h.payload.get("object_id") for h in shared}
    return best(shared + [h for h in own if h.payload.get("object_id") not in seen], k)
