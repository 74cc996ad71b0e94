"""Load a Trace into the graph: scrub personal data, split into chunks, write each chunk atomically.

The same path serves imports (DroidBot, AutoDroid) and the explorer's streamed
chunks: chunk k of trace T is written once, whoever sends it and however often.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Callable

from appmem.tracing import traced
from appmem.formats.ui import Action, ActionType, UIState
from appmem.graph.model import Step, Task, Trace
from appmem.graph.rows import Sent, build_rows, chunk_states, chunk_steps
from appmem.graph.screens import elements_of, locators, screen_of, view_locations
from appmem.graph.store import ChunkResult, GraphStore, task_rows
from appmem.graph.versions import resolve_version, settle_version
from appmem.formats.privacy import scrub_state, scrub_text

Progress = Callable[[int, int], None]


@dataclass
class IngestReport:
    trace_id: str
    package: str
    chunks: int = 0
    chunks_written: int = 0
    states: int = 0
    elements: int = 0
    transitions: int = 0
    seconds: float = 0.0
    results: list[ChunkResult] = field(default_factory=list, repr=False)

    @property
    def already_present(self) -> bool:
        return self.chunks > 0 and self.chunks_written == 0

    def as_dict(self) -> dict:
        return {"trace_id": self.trace_id, "package": self.package, "chunks": self.chunks,
                "chunks_written": self.chunks_written, "states": self.states, "elements": self.elements,
                "transitions": self.transitions, "seconds": round(self.seconds, 3),
                "already_present": self.already_present}


def scrub_action(action: Action) -> Action:
    """Typed text is what a user wrote: scrubbed with the stricter typed rules."""
    if action.type is not ActionType.INPUT or not action.text:
        return action
    return replace(action, text=scrub_text(action.text, typed=True))


def scrub_trace(trace: Trace) -> Trace:
    """A copy of the trace whose states and typed inputs carry no personal data (see formats/privacy.py)."""
    states: dict[str, UIState] = {sid: scrub_state(state) for sid, state in trace.states.items()}
    steps = [replace(step, action=scrub_action(step.action)) for step in trace.steps]
    return replace(trace, states=states, steps=steps)


def scrub_task(task: Task) -> Task:
    return replace(task, description=scrub_text(task.description),
                   steps=[replace(step, action=scrub_action(step.action)) for step in task.steps])


@traced("appmem.ingest")
def ingest_trace(store: GraphStore, trace: Trace, chunk_size: int, progress: Progress | None = None,
                 quorum: int = 3) -> IngestReport:
    """Write `trace`; `quorum` (APPMEM_TRUST_QUORUM) of contributors names a version an import holds."""
    started = time.perf_counter()
    clean = resolve_version(store, scrub_trace(trace), quorum)
    chunks = chunk_steps(clean, chunk_size)
    report = IngestReport(trace.id, trace.package, chunks=len(chunks))
    sent = Sent()
    for index, steps in enumerate(chunks):
        report.results.append(write_chunk(store, clean, index, steps, sent, quorum))
        if progress:
            progress(index + 1, len(chunks))
    settle_version(store, clean, trace.app_version, quorum)  # an import of unknown version joins the device's
    report.chunks_written = sum(r.written for r in report.results)
    report.states = len(frozenset().union(*(r.state_ids for r in report.results)))
    report.elements = len(frozenset().union(*(r.element_ids for r in report.results)))
    report.transitions = len(frozenset().union(*(r.transition_keys for r in report.results)))
    report.seconds = time.perf_counter() - started
    return report


def write_chunk(store: GraphStore, trace: Trace, index: int, steps: list[Step], sent: Sent | None = None,
                quorum: int = 3) -> ChunkResult:
    """Write chunk `index` of an already scrubbed trace (its `steps`, the states they
    touch). Pass the same `sent` to consecutive chunks of one load so element rows are
    sent, and element texts counted, once; a contribution's votes are folded at `quorum`."""
    rows = build_rows(trace, steps, chunk_states(trace, steps, first=index == 0), sent, first=index == 0)
    if sent is not None:
        sent.add(rows)
    return store.write_chunk(trace, index, rows, quorum)


def ingest_tasks(store: GraphStore, tasks: list[Task], demo_trace: Trace) -> int:
    """Store demonstrations; their steps point at the elements of `demo_trace`'s
    screens (ingest that trace first, so those elements exist) and keep what the
    demonstration saw on them (text, description, locators: an Element keeps only
    its latest observation)."""
    tasks = [scrub_task(task) for task in tasks]
    element_ids: dict[tuple[str, str], str] = {}
    seen: dict[tuple[str, str], dict] = {}
    for task in tasks:
        for step in task.steps:
            state = demo_trace.states.get(step.state_id)
            found = demo_trace.located.get(step.state_id)
            element = found.elements.get(step.action.element_key) if found is not None else None
            if element is not None:  # seen in a screenshot: memory's own element, as memory saw it
                element_ids[(step.state_id, element.key)] = element.id
                seen.setdefault((step.state_id, element.key), {"text": element.text, "content_desc": element.content_desc,
                                                               "locators": element.locators})
            if state is not None and step.action.element_key:
                screen = screen_of(state, demo_trace.package, demo_trace.app_version)
                key = step.action.element_key
                element = next((e for e in elements_of(state, screen, frozenset({key})).values() if e.key == key), None)
                if element is not None:
                    element_ids[(step.state_id, key)] = element.id
                    seen.setdefault((step.state_id, key), _seen(scrub_state(state), key))
    store.write_tasks(task_rows(tasks, element_ids, demo_trace, seen))
    return len(tasks)


def _seen(state: UIState, key: str) -> dict:
    """What the view with structural key `key` showed in `state`: text, description, locators."""
    located = view_locations(state.views)
    for view in state.views:
        if located.get(view.index, ("",))[0] == key:
            return {"text": view.text, "content_desc": view.content_desc,
                    "locators": locators(view, located[view.index][1])}
    return {}
