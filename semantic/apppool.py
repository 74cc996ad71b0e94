"""Summarise and embed apps in parallel processes, one app per job: `summarize` on every core.

The deterministic summarizer and the embedding model are CPU work that needs no store, so a pool of
processes does it (`screenbatch.prepare`, all of an app's screens to do at once), each process with its
own embedder on its share of the cores, all sharing the on-disk vector cache (SQLite WAL, safe across
processes). The process that owns the stores writes each app's result as one batch as it comes back:
local Qdrant allows one writer per folder tree, and one graph writer keeps ArcadeDB free of write
conflicts. Processes are started with `spawn`: the owner's threads (the Bolt driver's, ONNX's) are not
forked into them.
"""
from __future__ import annotations

import multiprocessing
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from appmem.semantic.contexts import ScreenContext
from appmem.semantic.embedder import Embedder, cores
from appmem.semantic.screenbatch import Prepared, SummarizeReport, prepare
from appmem.semantic.summaries import DeterministicSummarizer


@dataclass(frozen=True)
class EmbedderSpec:
    """How a process makes its embedder: the memory's home, the model, its threads, the vector cache."""

    home: Path
    model: str
    threads: int
    cache: bool


@dataclass
class AppJob:
    """One app's screens to summarise (deterministically, with these risky words) and embed."""

    package: str
    contexts: list[ScreenContext]
    risky_words: tuple[str, ...]
    embedder: EmbedderSpec


@lru_cache(maxsize=1)
def _embedder(spec: EmbedderSpec) -> Embedder:
    """The pool process's one embedder (the model is loaded once per process, not per job)."""
    return Embedder(spec.home, threads=spec.threads, cache=spec.cache, model=spec.model)


def run_job(job: AppJob) -> tuple[Prepared | None, SummarizeReport]:
    """In a pool process: the app's rows and points, and what it took (texts, seconds, errors)."""
    embedder = _embedder(job.embedder)
    computed, cached = embedder.computed, embedder.cached
    report = SummarizeReport(packages=[job.package])
    prepared = prepare(job.contexts, embedder, DeterministicSummarizer(job.risky_words), report)
    report.model_texts, report.cached_texts = embedder.computed - computed, embedder.cached - cached
    return prepared, report


def processes_for(wanted: int) -> int:
    """The processes to use: `wanted`, or one per core of this process when 0."""
    return wanted if wanted > 0 else cores()


class AppPool:
    """A pool of `processes` that summarise and embed apps (a context manager: the processes end with it)."""

    def __init__(self, processes: int, embedder: Embedder):
        self.processes = processes
        self.spec = EmbedderSpec(embedder.home, embedder.model, max(1, embedder.threads // processes),
                                 embedder.cache is not None)
        self._pool = ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn"))

    def submit(self, package: str, contexts: list[ScreenContext], risky_words: tuple[str, ...]) -> Future:
        return self._pool.submit(run_job, AppJob(package, contexts, risky_words, self.spec))

    def __enter__(self) -> AppPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
