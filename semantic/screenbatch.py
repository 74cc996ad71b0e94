"""A batch of screens summarised and embedded (`prepare`), then written (`write`): summarize's unit of work.

`prepare` needs only the contexts, a summarizer and an embedder, so it runs in any process
(semantic/apppool.py); `write` needs the stores and runs in the process that owns them. Within a batch the
vectors are written first, then the element fields, then the screen fields with their hash last: a run that
stops anywhere leaves the unfinished screens without their new hash, and the next run does them again.
`SummarizeReport` counts what a run did and where its time went, phase by phase.
"""
from __future__ import annotations

import hashlib
import json
import logging
import time
from dataclasses import dataclass, field

from appmem.errors import SummaryError
from appmem.graph.model import Element
from appmem.graph.store import GraphStore
from appmem.graph.vocabulary import BACK_WORDS, confirm_needed, label_of, role_of
from appmem.semantic.contexts import ScreenContext
from appmem.semantic.embedder import Embedder
from appmem.semantic.lexical import terms
from appmem.semantic.meaning import EMBEDDED, depth, meaning
from appmem.semantic.points import VectorPoint
from appmem.semantic.summaries import ElementSummary, ScreenSummary, Summarizer
from appmem.semantic.vectors import VectorStore

log = logging.getLogger(__name__)
FORMAT_VERSION = "semantic/10"  # bump to redo every summary after a change of the summarizer
PHASES = ("contexts", "summaries", "embeddings", "vector_writes", "graph_writes", "publish")


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
    processes: int = 1  # processes that summarised and embedded (semantic/apppool.py)
    # Seconds per phase (PHASES; `embeddings` is `embed_seconds`). With several processes, summaries and
    # embeddings are their processes' sums, so the phases may add up to more than `seconds`.
    phase_seconds: dict[str, float] = field(default_factory=lambda: dict.fromkeys(PHASES, 0.0))
    llm: dict = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)  # screens left out (SummaryError messages); retried next run

    @property
    def texts_per_second(self) -> float:
        return self.embedded_texts / self.embed_seconds if self.embed_seconds else 0.0

    def timed(self, phase: str, started: float) -> None:
        """Add the time since `started` (time.perf_counter) to `phase`."""
        self.phase_seconds[phase] += time.perf_counter() - started

    def add(self, other: SummarizeReport) -> None:
        """Count in what another process did (its screens, texts, seconds per phase, errors)."""
        for f in ("screens_done", "elements_done", "embedded_texts", "model_texts", "cached_texts", "embed_seconds"):
            setattr(self, f, getattr(self, f) + getattr(other, f))
        for phase, seconds in other.phase_seconds.items():
            self.phase_seconds[phase] += seconds
        self.errors += other.errors

    def as_dict(self) -> dict:
        phases = {**self.phase_seconds, "embeddings": self.embed_seconds}
        return {"packages": self.packages, "screens": self.screens, "screens_done": self.screens_done,
                "screens_unchanged": self.screens_unchanged, "elements_done": self.elements_done,
                "tasks": self.tasks, "tasks_done": self.tasks_done, "embedded_texts": self.embedded_texts,
                "model_texts": self.model_texts, "cached_texts": self.cached_texts,
                "texts_per_second": round(self.texts_per_second, 1), "seconds": round(self.seconds, 2),
                "processes": self.processes, "phase_seconds": {k: round(v, 2) for k, v in phases.items()},
                "llm": self.llm, "errors": self.errors}


def summary_hash(ctx: ScreenContext, kind: str) -> str:
    """What a screen's summary and its points were made from: its content, the kind of summarizer that made it
    and its elements seen to leave it open (a point's `needs_confirm`)."""
    body = f"{FORMAT_VERSION}|{kind}|{ctx.content_hash()}|{','.join(ctx.stays)}"
    return hashlib.sha256(body.encode()).hexdigest()[:32]


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
                              "role": role_of(e), "depth": depth(ctx), "resource_id": e.resource_id,
                              # whether its screen's changes hold only with its confirm (semantic/confirm_order.py)
                              "needs_confirm": confirm_needed(ctx.elements, ctx.stays),
                              # the screens it opens: a confirm there follows it in the ranking (semantic/ranking.py)
                              "leads_to": sorted({d.screen_id for d in ctx.destinations.get(e.id, [])} - {ctx.id}),
                              "terms": terms(es.simulated_task, *es.completes)})


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


@dataclass
class Prepared:
    """A batch's rows and points, ready to write (the screens that could not be summarised left out)."""

    screen_ids: list[str]
    packages: list[str]
    element_rows: list[dict]
    screen_rows: list[dict]
    element_points: list[VectorPoint]
    screen_points: list[VectorPoint]


def prepare(batch: list[ScreenContext], embedder: Embedder, summarizer: Summarizer,
            report: SummarizeReport) -> Prepared | None:
    """Summarise and embed `batch`: None when no screen of it could be summarised."""
    started = time.perf_counter()
    by_screen = {s.screen_id: s for s in _summaries(batch, summarizer, report)}
    batch = [ctx for ctx in batch if ctx.id in by_screen]
    if not batch:
        report.timed("summaries", started)
        return None
    # the hash of what made each summary: a screen the LLM's deterministic fallback summarised is asked again
    # the next time an LLM summarises (a garbage reply once must not pin the fallback for good)
    hashes = {ctx.id: summary_hash(ctx, summarizer.made(ctx.id)) for ctx in batch}
    element_rows, screen_rows, points, texts = [], [], [], []
    for ctx in batch:
        summary = by_screen[ctx.id]
        element_rows += _element_rows(ctx, summary, points, texts)
        screen_rows.append({"id": ctx.id, "summary": summary.summary,
                            "subtasks": json.dumps([t.model_dump() for t in summary.subtasks], ensure_ascii=False),
                            "summary_hash": hashes[ctx.id]})
        points.append(("screens", ctx, summary, None, None))
        texts.append(screen_text(summary))
    report.timed("summaries", started)
    started = time.perf_counter()
    unique = list(dict.fromkeys(texts))  # a screen part is every element's of the screen: embedded once
    by_text = dict(zip(unique, embedder.embed(unique, apps={ctx.package for ctx in batch})))
    report.embed_seconds += time.perf_counter() - started
    report.embedded_texts += len(unique)
    element_points, screen_points = [], []
    for (kind, ctx, summary, e, es), text in zip(points, texts):
        if kind == "elements":
            summary_e, variant, _ = es
            element_points.append(element_point(ctx, summary, e, by_text[text], text, summary_e, variant))
        else:
            screen_points.append(VectorPoint(object_id=ctx.id, vector=by_text[text], package=ctx.package,
                                             app_version=ctx.app_version, screen_id=ctx.id,
                                             risky=any(x.risky for x in summary.elements), text=text,
                                             extra={"screen_title": ctx.title, "summary_hash": hashes[ctx.id]}))
    return Prepared([ctx.id for ctx in batch], sorted({ctx.package for ctx in batch}), element_rows, screen_rows,
                    element_points, screen_points)


def _element_rows(ctx: ScreenContext, summary: ScreenSummary, points: list, texts: list[str]) -> list[dict]:
    """The graph rows of a screen's elements; their points to embed (and the texts) added to `points`."""
    rows = []
    infos = {e.id: e for e in ctx.elements}
    for es in summary.elements:
        e = infos.get(es.element_id)
        if e is None:
            continue
        rows.append({"id": e.id, "simulated_task": es.simulated_task, "risky": es.risky,
                     "parameter": es.parameter.model_dump_json() if es.parameter else None})
        if label_of(e).lower() not in BACK_WORDS:
            for i, text in enumerate([es.simulated_task, *es.completes]):
                points.append(("elements", ctx, summary, e, (es, i, text)))
                texts.append(text)
            parts = meaning(ctx, e)
            for part in EMBEDDED:
                if parts[part]:
                    points.append(("elements", ctx, summary, e, (es, part, parts[part])))
                    texts.append(parts[part])
    return rows


def write(prepared: Prepared, store: GraphStore, vectors: VectorStore, report: SummarizeReport) -> None:
    """The batch's vectors (its screens' old element points dropped: completions that no longer apply),
    then its element fields, then its screen fields with the hashes last."""
    started = time.perf_counter()
    vectors.delete_screens("elements", prepared.screen_ids, prepared.packages)
    vectors.upsert("elements", prepared.element_points)
    vectors.upsert("screens", prepared.screen_points)
    report.timed("vector_writes", started)
    started = time.perf_counter()
    store.write("semantic_write_elements", rows=prepared.element_rows)
    store.write("semantic_write_screens", rows=prepared.screen_rows)  # the hashes: last
    report.timed("graph_writes", started)
    report.screens_done += len(prepared.screen_ids)
    report.elements_done += len(prepared.element_rows)
