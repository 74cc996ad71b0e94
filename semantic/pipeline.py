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

With `processes` above 1 and the deterministic summarizer, apps are summarised and embedded in that
many processes (semantic/apppool.py), and this process writes each app's result as one batch; the
batches themselves (summarise, embed, write) are semantic/screenbatch.py.

Clients (graph store, vector store, embedder, summarizer) are injected.
"""
from __future__ import annotations

import hashlib
import json
import time
from collections import deque
from concurrent.futures import Future
from contextlib import nullcontext
from typing import Callable

from appmem.tracing import traced
from appmem.graph.store import GraphStore, element_of
from appmem.semantic.apppool import AppPool
from appmem.semantic.contexts import ScreenContext, ScreenRow, TransitionRow, build_contexts
from appmem.semantic.embedder import Embedder
from appmem.semantic.screenbatch import SummarizeReport, prepare, summary_hash, write
from appmem.semantic.summaries import DeterministicSummarizer, Summarizer
from appmem.semantic.snapshots import publish
from appmem.semantic.points import VectorPoint
from appmem.semantic.vectors import VectorStore

Progress = Callable[[str, int, int], None]  # (phase, done, total)
BATCH_SCREENS = 32


def load_contexts(store: GraphStore, packages: list[str] | None) -> tuple[list[ScreenContext], dict[str, str | None]]:
    """The UTG contexts of the screens of `packages` (all when None), and each screen's stored hash."""
    screen_rows = store.read("semantic_screens", packages=packages)
    elements = [element_of(r) for r in store.elements(screen_ids=[r["id"] for r in screen_rows])]
    transitions = [TransitionRow(r["source"], r["target"], r["element_id"], r["action"] or "tap")
                   for r in store.read("semantic_transitions", packages=packages)]
    screens = [ScreenRow(r["id"], r["package"], r["app_version"] or "", r["activity"] or "", r["title"])
               for r in screen_rows]
    return build_contexts(screens, elements, transitions), {r["id"]: r["summary_hash"] for r in screen_rows}


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
        vecs = embedder.embed([r["description"] for r, _, _ in chunk], apps={r["package"] for r, _, _ in chunk})
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
              batch_screens: int = BATCH_SCREENS, report: SummarizeReport | None = None,
              processes: int = 1) -> SummarizeReport:
    """Summarise and embed what is new or changed in the apps of `package` (all when None).

    One app at a time, from its stored hashes to its published snapshot: a local vector store
    opens each app's folder about once (semantic/appfolders.py), and readers see each app as soon
    as it is done. With `processes` > 1 (the deterministic summarizer only: an LLM's client stays in
    this process) a pool summarises and embeds the next apps while this process writes the last.
    When a batch raises (the LLM endpoint refused, a store failed), what was written is published
    before the error goes on, and `report`, when the caller passed one, says what was done."""
    started = time.perf_counter()
    computed, cached = embedder.computed, embedder.cached
    summarizer = summarizer or DeterministicSummarizer()
    packages = [package] if isinstance(package, str) else package
    report = report or SummarizeReport(packages=[])
    contexts, stored = load_contexts(store, packages)
    report.timed("contexts", started)
    report.packages, report.screens = sorted({c.package for c in contexts}), len(contexts)
    parallel = processes > 1 and type(summarizer) is DeterministicSummarizer and len(report.packages) > 1
    report.processes = processes if parallel else 1
    run = _Run(store, vectors, embedder, summarizer, report, batch_screens, contexts, stored)
    try:
        with AppPool(processes, embedder) if parallel else nullcontext() as pool:
            run.apps(packages, pool, progress)
    finally:
        # Anything else written since the last publish: also the screens done before a batch failed, whose
        # new summaries and hashes are in the graph already (readers would see the graph and vectors disagree).
        run.publish(None)
        stats = summarizer.stats
        report.llm = {"calls": stats.calls, "cached": stats.cached, "fallbacks": stats.fallbacks,
                      "prompt_tokens": stats.prompt_tokens, "completion_tokens": stats.completion_tokens,
                      "cost": round(stats.cost, 6)}
        report.model_texts += embedder.computed - computed
        report.cached_texts += embedder.cached - cached
        report.seconds = time.perf_counter() - started
    if progress:
        progress("tasks", report.tasks_done, report.tasks_done)
    return report


class _Run:
    """One `summarize` run over its apps: what each app has to do, done here or in the pool, then written."""

    def __init__(self, store: GraphStore, vectors: VectorStore, embedder: Embedder, summarizer: Summarizer,
                 report: SummarizeReport, batch_screens: int, contexts: list[ScreenContext],
                 stored: dict[str, str | None]):
        self.store, self.vectors, self.embedder, self.summarizer = store, vectors, embedder, summarizer
        self.report, self.batch_screens, self.stored = report, batch_screens, stored
        self.hashes = {c.id: summary_hash(c, summarizer.kind) for c in contexts}
        self.screens_of: dict[str, list[ScreenContext]] = {}
        for c in contexts:
            self.screens_of.setdefault(c.package, []).append(c)
        self.total, self.checked = len(contexts), 0

    def apps(self, packages: list[str] | None, pool: AppPool | None, progress: Progress | None) -> None:
        """Every app in order; with a pool, up to two jobs per process ahead of the app being written."""
        tasks_of: dict[str, list[dict]] = {}
        for r in self.store.read("semantic_tasks", packages=packages):
            tasks_of.setdefault(r["package"], []).append(r)
        ahead = 2 * pool.processes if pool else 0
        pending: deque[tuple[str, list[ScreenContext], Future | None]] = deque()
        for app in sorted(set(self.screens_of) | set(tasks_of)):
            todo = self.todo(app)
            job = pool.submit(app, todo, self.summarizer.risky_words) if pool and todo else None
            pending.append((app, todo, job))
            while len(pending) > ahead:
                self.finish(*pending.popleft(), tasks_of, progress)
        while pending:
            self.finish(*pending.popleft(), tasks_of, progress)

    def todo(self, app: str) -> list[ScreenContext]:
        """The app's screens whose summary is not done in both stores (a lost or new vector folder redoes them)."""
        indexed = self.vectors.values("screens", "summary_hash", [app])
        screens = self.screens_of.get(app, [])
        todo = [c for c in screens if not self.stored.get(c.id) == indexed.get(c.id) == self.hashes[c.id]]
        self.report.screens_unchanged += len(screens) - len(todo)
        return todo

    def finish(self, app: str, todo: list[ScreenContext], job: Future | None, tasks_of: dict[str, list[dict]],
               progress: Progress | None) -> None:
        """Write the app's summaries (the pool's, or made here batch by batch), embed its tasks, publish it."""
        if job is not None:
            prepared, done = job.result()
            self.report.add(done)
            if prepared is not None:
                write(prepared, self.store, self.vectors, self.report)
        else:
            for i in range(0, len(todo), self.batch_screens):
                prepared = prepare(todo[i:i + self.batch_screens], self.embedder, self.summarizer, self.report)
                if prepared is not None:
                    write(prepared, self.store, self.vectors, self.report)
        embed_tasks(self.store, self.vectors, self.embedder, tasks_of.get(app, []), [app], self.report)
        self.publish(app)
        self.checked += len(self.screens_of.get(app, []))
        if progress:
            progress("screens", self.checked, self.total)

    def publish(self, app: str | None) -> None:
        """Readers in other processes see the new vectors of `app` (a missing snapshot is written too) and of
        anything else written since; with None, of everything written since the last publish."""
        started = time.perf_counter()
        publish(self.vectors, sorted(self.vectors.dirty | {app}) if app else None)
        self.report.timed("publish", started)
