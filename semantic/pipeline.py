"""The incremental summarize-and-embed pipeline: graph → summaries → graph + vectors.

`summarize` reads the screens, elements and transitions of the chosen apps,
builds each screen's UTG context, and processes only the screens whose context
hash differs from the `summary_hash` stored on the Screen node (and on its
point in the `screens` collection, so a lost vector folder is refilled): new
screens, and screens whose elements, titles, neighbours or arrivals changed. Per batch
of screens it upserts the vectors (idempotent point ids), writes the element
fields, then the screen fields with the hash last; a run that stops anywhere
leaves the unfinished screens without their new hash, and the next run does
exactly those. Demonstrations (Tasks) are embedded the same way, marked by
`embed_hash`.

Clients (graph store, vector store, embedder, summarizer) are injected.
"""
from __future__ import annotations

import hashlib
import json
import logging
import time
from dataclasses import dataclass, field
from typing import Callable

from appmem.errors import SummaryError
from appmem.tracing import traced
from appmem.graph.model import Element
from appmem.graph.store import GraphStore, element_of
from appmem.graph.vocabulary import BACK_WORDS, label_of, role_of
from appmem.semantic.contexts import ScreenContext, ScreenRow, TransitionRow, build_contexts
from appmem.semantic.embedder import Embedder
from appmem.semantic.meaning import EMBEDDED, depth, meaning
from appmem.semantic.lexical import terms
from appmem.semantic.summaries import DeterministicSummarizer, ElementSummary, ScreenSummary, Summarizer
from appmem.semantic.snapshots import publish
from appmem.semantic.points import VectorPoint
from appmem.semantic.vectors import VectorStore

log = logging.getLogger(__name__)
Progress = Callable[[str, int, int], None]  # (phase, done, total)
BATCH_SCREENS = 32
FORMAT_VERSION = "semantic/8"  # bump to redo every summary after a change of the summarizer


@dataclass
class SummarizeReport:
    packages: list[str]
    screens: int = 0
    screens_done: int = 0
    screens_unchanged: int = 0
    elements_done: int = 0
    tasks: int = 0
    tasks_done: int = 0
    embedded_texts: int = 0  # texts that got a vector (one per point written)
    model_texts: int = 0  # distinct texts the model ran on (the others: found in the vector cache or repeated)
    cached_texts: int = 0  # distinct texts found in the vector cache
    embed_seconds: float = 0.0
    seconds: float = 0.0
    llm: dict = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)  # screens left out (SummaryError messages); retried next run

    @property
    def texts_per_second(self) -> float:
        return self.embedded_texts / self.embed_seconds if self.embed_seconds else 0.0

    def as_dict(self) -> dict:
        return {"packages": self.packages, "screens": self.screens, "screens_done": self.screens_done,
                "screens_unchanged": self.screens_unchanged, "elements_done": self.elements_done,
                "tasks": self.tasks, "tasks_done": self.tasks_done, "embedded_texts": self.embedded_texts,
                "model_texts": self.model_texts, "cached_texts": self.cached_texts,
                "texts_per_second": round(self.texts_per_second, 1), "seconds": round(self.seconds, 2),
                "llm": self.llm, "errors": self.errors}


def load_contexts(store: GraphStore, packages: list[str] | None) -> tuple[list[ScreenContext], dict[str, str | None]]:
    """The UTG contexts of the screens of `packages` (all when None), and each screen's stored hash."""
    screen_rows = store.read("semantic_screens", packages=packages)
    elements = [element_of(r) for r in store.elements(screen_ids=[r["id"] for r in screen_rows])]
    transitions = [TransitionRow(r["source"], r["target"], r["element_id"], r["action"] or "tap")
                   for r in store.read("semantic_transitions", packages=packages)]
    screens = [ScreenRow(r["id"], r["package"], r["app_version"] or "", r["activity"] or "", r["title"])
               for r in screen_rows]
    return build_contexts(screens, elements, transitions), {r["id"]: r["summary_hash"] for r in screen_rows}


def summary_hash(ctx: ScreenContext, kind: str) -> str:
    """What a screen's summary was made from: its content and the kind of summarizer that made it."""
    return hashlib.sha256(f"{FORMAT_VERSION}|{kind}|{ctx.content_hash()}".encode()).hexdigest()[:32]


def element_point(ctx: ScreenContext, summary: ScreenSummary, e: Element, vector: list[float],
                  text: str, es: ElementSummary, variant: int | str = 0) -> VectorPoint:
    """Variant 0 embeds the element's simulated task, numbered ones a task it completes (`text`),
    named ones a part of its meaning (semantic/meaning.py: label, screen, effect; payload `part`).
    Every row carries the element's lexical terms, role and depth (semantic/ranking.py)."""
    part = variant if isinstance(variant, str) else None
    return VectorPoint(object_id=e.id if variant == 0 else f"{e.id}#{variant}", vector=vector, package=ctx.package,
                       app_version=ctx.app_version, screen_id=ctx.id, element_id=e.id, risky=es.risky, text=text,
                       extra={"label": label_of(e), "screen_title": ctx.title, "simulated_task": es.simulated_task,
                              "screen_summary": summary.summary, "variant": -1 if part else variant, "part": part,
                              "role": role_of(e), "depth": depth(ctx),
                              # the screens it opens: a confirm there follows it in the ranking (semantic/ranking.py)
                              "leads_to": sorted({d.screen_id for d in ctx.destinations.get(e.id, [])} - {ctx.id}),
                              "terms": terms(es.simulated_task, *es.completes)})


def element_texts(ctx: ScreenContext, e: Element, es: ElementSummary) -> list[tuple[int | str, str]]:
    """(variant, text) of what is embedded of an element: its simulated task (0), each task it completes (1, 2,
    ...) and each part of its meaning that it has (semantic/meaning.py); nothing of a back button."""
    if label_of(e).lower() in BACK_WORDS:
        return []
    parts = meaning(ctx, e)
    return list(enumerate([es.simulated_task, *es.completes])) + [(p, parts[p]) for p in EMBEDDED if parts[p]]


def screen_text(summary: ScreenSummary) -> str:
    subtasks = "; ".join(t.name.replace("_", " ") for t in summary.subtasks[:10])
    return summary.summary + (f". Sub-tasks: {subtasks}" if subtasks else "")


def _summaries(batch: list[ScreenContext], summarizer: Summarizer, report: SummarizeReport) -> list[ScreenSummary]:
    """The batch's summaries; when a screen cannot be summarised, the others one by one and that one
    named in `report.errors` (it keeps its old hash, so the next run tries it again)."""
    try:
        return summarizer.summarize(batch)
    except SummaryError as exc:
        if len(batch) == 1:
            log.warning("%s", exc)
            report.errors.append(str(exc))
            return []
        return [s for ctx in batch for s in _summaries([ctx], summarizer, report)]


def _process(batch: list[ScreenContext], store: GraphStore, vectors: VectorStore,
             embedder: Embedder, summarizer: Summarizer, report: SummarizeReport) -> None:
    by_screen = {s.screen_id: s for s in _summaries(batch, summarizer, report)}
    batch = [ctx for ctx in batch if ctx.id in by_screen]
    if not batch:
        return
    # the hash of what made each summary: a screen the LLM's deterministic fallback summarised is asked again
    # the next time an LLM summarises (a garbage reply once must not pin the fallback for good)
    hashes = {ctx.id: summary_hash(ctx, summarizer.made(ctx.id)) for ctx in batch}
    element_rows, screen_rows, points, texts = [], [], [], []
    for ctx in batch:
        summary = by_screen[ctx.id]
        infos = {e.id: e for e in ctx.elements}
        for es in summary.elements:
            e = infos.get(es.element_id)
            if e is None:
                continue
            element_rows.append({"id": e.id, "simulated_task": es.simulated_task, "risky": es.risky,
                                 "parameter": es.parameter.model_dump_json() if es.parameter else None})
            for variant, text in element_texts(ctx, e, es):
                points.append(("elements", ctx, summary, e, (es, variant, text)))
                texts.append(text)
        screen_rows.append({"id": ctx.id, "summary": summary.summary,
                            "subtasks": json.dumps([t.model_dump() for t in summary.subtasks], ensure_ascii=False),
                            "summary_hash": hashes[ctx.id]})
        points.append(("screens", ctx, summary, None, None))
        texts.append(screen_text(summary))
    started = time.perf_counter()
    unique = list(dict.fromkeys(texts))  # a screen part is every element's of the screen: embedded once
    by_text = dict(zip(unique, embedder.embed(unique)))
    vecs = [by_text[t] for t in texts]
    report.embed_seconds += time.perf_counter() - started
    report.embedded_texts += len(unique)
    element_points, screen_points = [], []
    for (kind, ctx, summary, e, es), vector in zip(points, vecs):
        if kind == "elements":
            summary_e, variant, text = es
            element_points.append(element_point(ctx, summary, e, vector, text, summary_e, variant))
        else:
            screen_points.append(VectorPoint(object_id=ctx.id, vector=vector, package=ctx.package,
                                             app_version=ctx.app_version, screen_id=ctx.id,
                                             risky=any(x.risky for x in summary.elements),
                                             text=screen_text(summary),
                                             extra={"screen_title": ctx.title, "summary_hash": hashes[ctx.id]}))
    # drop completions that no longer apply
    vectors.delete_screens("elements", [ctx.id for ctx in batch], sorted({ctx.package for ctx in batch}))
    vectors.upsert("elements", element_points)
    vectors.upsert("screens", screen_points)
    store.write("semantic_write_elements", rows=element_rows)
    store.write("semantic_write_screens", rows=screen_rows)  # the hashes: last
    report.screens_done += len(batch)
    report.elements_done += len(element_rows)


def embed_tasks(store: GraphStore, vectors: VectorStore, embedder: Embedder, rows: list[dict],
                packages: list[str] | None, report: SummarizeReport) -> None:
    """Embed the demonstrations `rows` (of `packages`) whose description or steps changed; drop the
    vectors of the others (a contributed task whose backers were purged: recall may not use it)."""
    indexed = vectors.values("tasks", "embed_hash", packages)
    gone = sorted(set(indexed) - {r["id"] for r in rows})
    if gone:
        vectors.delete("tasks", gone, packages)
    report.tasks += len(rows)
    todo = []
    for r in rows:
        steps = sorted(r["steps"], key=lambda s: s["index"])
        content = json.dumps([r["description"], r["package"], steps], sort_keys=True)
        h = hashlib.sha256(content.encode()).hexdigest()[:32]
        if not (r["embed_hash"] == indexed.get(r["id"]) == h) and r["description"]:
            todo.append((r, steps, h))
    for i in range(0, len(todo), 256):
        chunk = todo[i:i + 256]
        started = time.perf_counter()
        vecs = embedder.embed([r["description"] for r, _, _ in chunk])
        report.embed_seconds += time.perf_counter() - started
        report.embedded_texts += len(chunk)
        points = []
        for (r, steps, h), vector in zip(chunk, vecs):
            last = steps[-1] if steps else {}
            points.append(VectorPoint(object_id=r["id"], vector=vector, package=r["package"],
                                      screen_id=last.get("screen_id") or "", element_id=last.get("element_id") or "",
                                      text=r["description"], extra={"task_id": r["id"], "steps": len(steps),
                                                                    "element_ids": [s["element_id"] for s in steps],
                                                                    "embed_hash": h}))
        vectors.upsert("tasks", points)
        store.write("semantic_write_tasks", rows=[{"id": r["id"], "embed_hash": h} for r, _, h in chunk])
        report.tasks_done += len(chunk)


@traced("appmem.summarize")
def summarize(store: GraphStore, vectors: VectorStore, embedder: Embedder, summarizer: Summarizer | None = None,
              package: str | list[str] | None = None, progress: Progress | None = None,
              batch_screens: int = BATCH_SCREENS, report: SummarizeReport | None = None) -> SummarizeReport:
    """Summarise and embed what is new or changed in the apps of `package` (all when None).

    One app at a time, from its stored hashes to its published snapshot: a local vector store
    opens each app's folder about once (semantic/appfolders.py), and readers see each app as soon
    as it is done. When a batch raises (the LLM endpoint refused, a store failed), what was written
    is published before the error goes on, and `report`, when the caller passed one, says what was done."""
    started = time.perf_counter()
    computed, cached = embedder.computed, embedder.cached
    summarizer = summarizer or DeterministicSummarizer()
    packages = [package] if isinstance(package, str) else package
    contexts, stored = load_contexts(store, packages)
    report = report or SummarizeReport(packages=[])
    report.packages, report.screens = sorted({c.package for c in contexts}), len(contexts)
    hashes = {c.id: summary_hash(c, summarizer.kind) for c in contexts}
    screens_of: dict[str, list[ScreenContext]] = {}
    for c in contexts:
        screens_of.setdefault(c.package, []).append(c)
    tasks_of: dict[str, list[dict]] = {}
    for r in store.read("semantic_tasks", packages=packages):
        tasks_of.setdefault(r["package"], []).append(r)
    checked = 0
    try:
        for app in sorted(set(screens_of) | set(tasks_of)):
            app_screens = screens_of.get(app, [])
            # Done means done in both stores: a lost or new vector folder redoes its screens.
            indexed = vectors.values("screens", "summary_hash", [app])
            todo = [c for c in app_screens if not stored.get(c.id) == indexed.get(c.id) == hashes[c.id]]
            report.screens_unchanged += len(app_screens) - len(todo)
            for i in range(0, len(todo), batch_screens):
                _process(todo[i:i + batch_screens], store, vectors, embedder, summarizer, report)
            embed_tasks(store, vectors, embedder, tasks_of.get(app, []), [app], report)
            # Readers in other processes see the new vectors (a missing snapshot is written too).
            publish(vectors, sorted(vectors.dirty | {app}))
            checked += len(app_screens)
            if progress:
                progress("screens", checked, len(contexts))
    finally:
        # Anything else written since the last publish: also the screens done before a batch failed, whose
        # new summaries and hashes are in the graph already (readers would see the graph and vectors disagree).
        publish(vectors)
        stats = summarizer.stats
        report.llm = {"calls": stats.calls, "cached": stats.cached, "fallbacks": stats.fallbacks,
                      "prompt_tokens": stats.prompt_tokens, "completion_tokens": stats.completion_tokens,
                      "cost": round(stats.cost, 6)}
        report.model_texts, report.cached_texts = embedder.computed - computed, embedder.cached - cached
        report.seconds = time.perf_counter() - started
    if progress:
        progress("tasks", report.tasks_done, report.tasks_done)
    return report
