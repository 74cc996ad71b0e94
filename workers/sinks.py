"""Where an exploration job's trace goes: chunks written to the graph under the packages' write
locks, fenced by the job lease (a worker that lost its lease cannot write), then the crawl's
version settled (graph/versions.py: imports of unknown version with its screens join it)."""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import redis

from appmem.errors import LeaseError
from appmem.graph.model import Step, Trace
from appmem.graph.store import GraphStore
from appmem.graph.versions import fold_aliases
from appmem.ingest.pipeline import scrub_trace, write_chunk
from appmem.workers.devices import Lease, graph_write_lock

log = logging.getLogger(__name__)


class ChunkSink(Protocol):
    def written(self, trace_id: str) -> list[int]:
        """Chunk indexes of this trace already in the graph."""

    def write(self, trace: Trace, index: int, steps: list[Step]) -> None:
        """Write chunk `index` (its steps and the states they touch)."""

    def settle(self, trace: Trace) -> None:
        """After the last chunk: `trace` holds the app's states the crawl saw (graph/versions.py)."""


@dataclass
class GraphChunkSink:
    """Writes chunks to the graph under the packages' write locks, fenced by the job lease."""

    store: GraphStore
    r: redis.Redis
    fence: Lease
    lock_ttl_s: float = 120.0
    lock_wait_s: float = 60.0
    on_written: Callable[[int, int], None] | None = None  # (chunk index, steps so far)

    def written(self, trace_id: str) -> list[int]:
        rows = self.store.read("explore_progress", trace_id=trace_id)
        return sorted(int(c) for c in rows[0]["chunks"]) if rows else []

    def write(self, trace: Trace, index: int, steps: list[Step]) -> None:
        packages = [trace.package, *(s.package for s in trace.states.values())]
        with graph_write_lock(self.r, packages, self.lock_ttl_s, self.lock_wait_s):
            if not self.fence.held():
                raise LeaseError(f"job lease {self.fence.name} lost before writing chunk {index}")
            result = write_chunk(self.store, scrub_trace(trace), index, steps)
        log.info("trace %s chunk %d: %d steps, %s", trace.id, index, len(steps),
                 "written" if result.written else "already present")
        if self.on_written and steps:
            self.on_written(index, steps[-1].index + 1)

    def settle(self, trace: Trace) -> None:
        """The crawl's device-reported version: imports of unknown version with its screens join it."""
        with graph_write_lock(self.r, [trace.package], self.lock_ttl_s, self.lock_wait_s):
            fold_aliases(self.store, trace)
