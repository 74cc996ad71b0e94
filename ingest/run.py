"""Executed agent runs (`contract.RunTrace`) → a Trace of source "agent", plus a Task when done.

    {"format": "appmem-run/1", "task", "package", "app_version", "device", "started", "ended",
     "status": "done|failed|stopped",
     "steps": [{"index", "action", "element": {"text","content_desc","resource_id","class_name","bounds"} | null,
                "input", "before_xml", "after_xml", "before_activity"?, "after_activity"?,
                "expected_screen", "reached_screen", "outcome": "ok|no_effect|crash|missed"}]}

`before_activity` / `after_activity` (optional) are the foreground activities: a
screen's id includes its activity, so with them a run's screens merge with the
crawled and imported ones. Each step's states come from its uiautomator dumps;
its element is found in the `before` dump by resource id, texts and bounds. A
step whose outcome is not "ok" becomes a failure on its edge. A "done" run is
also a demonstration: a Task (source "agent") of its successful steps.
A failed step that names its `expected_screen` counts as a failure of the edge
to that screen (the one the plan meant), not of the one the device took.

A run that replayed a stored task (`recalled_task`: the task its plan recalled)
is that task's outcome: done is a success, failed a failure (a stopped run, a
risky step the user declined, is neither). It counts per contributor: each key
(or "local" for one's own imports) holds its latest outcome per task, so one key
moves a task's counts by one at most, and a purge of the key takes it back
(cypher/task_run_*.cypher). Recall ranks by the counts only once
APPMEM_TRUST_QUORUM keys reported a run of the task.
"""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from appmem.errors import InputFormatError
from appmem.contract.run import RunElement, RunTrace
from appmem.formats.ui import Action, ActionType, stable_id, UIState, View
from appmem.graph.model import Outcome, Step, Task, TaskStep, Trace
from appmem.graph.screens import view_paths
from appmem.graph.times import utc_iso
from appmem.graph.vocabulary import clean_all, without_package
from appmem.formats.uixml import parse_hierarchy


def read_run(path: Path) -> RunTrace:
    """A run trace file, validated; problems name the file and the field."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputFormatError(str(path), "file is missing") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputFormatError(str(path), f"not a JSON file: {exc}") from None
    return validate_run(raw, str(path))


def validate_run(raw: object, source: str) -> RunTrace:
    try:  # a JSON "\ud800" escape decodes to a lone surrogate, which no hash or driver takes
        return RunTrace.model_validate(clean_all(raw))
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "(root)"
        raise InputFormatError(source, f"{field}: {first['msg']}") from None


def _view_index(state: UIState, element: RunElement) -> int | None:
    """The view of `state` the step acted on: same resource id, texts and class; the bounds break ties."""
    def score(v: View) -> tuple[int, int]:
        same = sum((v.resource_id == element.resource_id, v.text == element.text,
                    v.content_desc == element.content_desc, v.class_name == element.class_name))
        return same, -sum(abs(a - b) for a, b in zip(v.bounds.as_list(), element.bounds))
    best = max(state.views, key=score, default=None)
    return best.index if best is not None and score(best)[0] >= 3 else None


@dataclass
class RunImport:
    trace: Trace
    task: Task | None
    unmatched: list[dict] = field(default_factory=list)  # steps kept out of the graph, with the reason
    outcome: dict | None = None  # the replayed stored task's outcome: task_id, contributor, ok, at


def require_app(store, run: RunTrace) -> None:
    """A run of an app memory holds, or one whose dumps show it: a trace naming another package than its
    dumps would add an app nobody saw, listed to every key. (A known app's run may show only windows
    drawn over it: a recording kept the notification shade as one of the app's screens.)"""
    if not run.shows_app() and not store.read("serve_app_versions", package=run.package):
        raise InputFormatError("run", f"package {run.package!r}: memory holds no such app and no step's dump "
                                      "shows a view of it (a trace must show the app it reports)")


def ingest_run(store, run: RunTrace, contributor: str, chunk_steps: int, quorum: int,
               progress=None, weight: float = 1.0) -> tuple[dict, RunImport]:
    """Write a run into the graph: its trace, its Task when done, failures on the edges it missed, its
    outcome for the stored task it replayed. `contributor`: the API key id, or "local" (one's own run);
    `quorum`: APPMEM_TRUST_QUORUM; `progress(done, chunks)` after each chunk written (it may raise to
    stop); `weight`: the contributor's voice on the edges (graph/votes.py). Returns the report and what was
    imported."""
    from appmem.ingest.pipeline import ingest_tasks, ingest_trace

    require_app(store, run)
    imported = run_trace(run, contributor)
    imported.trace.weight = weight
    report = ingest_trace(store, imported.trace, chunk_steps, progress, quorum).as_dict()
    if imported.task is not None:
        ingest_tasks(store, [imported.task], imported.trace)
    return {**report, "task": imported.task.id if imported.task else None,
            "failed_steps": sum(s.outcome != "ok" for s in run.steps),
            "missed_edges": sum(s.outcome != "ok" and bool(s.expected_screen) for s in run.steps),
            "unmatched_steps": imported.unmatched,
            "recalled_task": count_outcome(store, run, imported.outcome, quorum)}, imported


def count_outcome(store, run: RunTrace, outcome: dict | None, quorum: int) -> dict | None:
    """The run's outcome counted for the stored task it replayed; what was counted, or why nothing was."""
    if run.recalled_task is None:
        return None
    if outcome is None:
        return {"task_id": run.recalled_task, "counted": False, "reason": "a stopped run is neither outcome"}
    if not store.write("task_run_outcome", package=run.package, **outcome):
        return {"task_id": run.recalled_task, "counted": False, "reason": f"no stored task of {run.package} has this id"}
    counts = store.write("task_run_counts", ids=[run.recalled_task], quorum=quorum)[0]
    return {"task_id": run.recalled_task, "counted": True, "ok": outcome["ok"], "successes": counts["successes"],
            "failures": counts["failures"]}


def run_trace(run: RunTrace, contributor: str = "local") -> RunImport:
    """The run as a Trace (source "agent") and its Task for a done run; `contributor` is the API key id of
    a contribution ("local": one's own run, trusted like an import). A failed step with an
    `expected_screen` is a failure of the edge to that screen (graph/rows.py), else of the edge it took."""
    trace_id = stable_id("trace", "agent", contributor, run.package, run.device, run.started, run.task)
    # The times in canonical UTC (graph/times.py), the one form the graph's datetime() reads: this runs at the
    # API's edge too, so a time it cannot read is a 422 there, not a contribution failed by the worker after
    # its 202. (The id keeps the run's own text: a run sent again maps to the trace it made before.)
    started, ended = utc_iso(run.started, "started"), utc_iso(run.ended, "ended")
    states: dict[str, UIState] = {}
    steps: list[Step] = []
    task_steps: list[TaskStep] = []
    unmatched: list[dict] = []

    def state_of(xml: str, activity: str, where: str) -> UIState:
        try:  # the dump's own package: a step may leave the app (launcher, share sheet)
            node = next((n for n in ET.fromstring(xml).iter("node") if n.get("package")), None)
        except ET.ParseError:  # parse_hierarchy reports it with its place
            node = None
        state = parse_hierarchy(xml, node.get("package") if node is not None else run.package, activity, where=where)
        return states.setdefault(state.state_id, state)

    for step in run.steps:
        where = f"run step {step.index}"
        before = state_of(step.before_xml, step.before_activity, where + " before_xml")
        after = state_of(step.after_xml, step.after_activity, where + " after_xml")
        kind = ActionType(step.action)
        detail = step.input if kind in (ActionType.INPUT, ActionType.SCROLL, ActionType.START_APP) else ""
        action = Action(kind, text=detail)
        if step.element is not None and kind.needs_element:
            index = _view_index(before, step.element)
            if index is None:  # kept with the reason; the rest of the run is still imported
                unmatched.append({"index": step.index, "reason": f"{where}: its element is not in its before_xml dump"})
                continue
            action.element_key = view_paths(before.views)[index]
        steps.append(Step(step.index, before.state_id, action, after.state_id, outcome=Outcome(step.outcome),
                          at=ended, expected_screen=step.expected_screen or ""))
        if step.outcome == "ok":
            task_steps.append(TaskStep(before.state_id, action))
    trace = Trace(id=trace_id, source="agent", package=run.package, app_version=run.app_version, device=run.device,
                  explorer="appmem-run", started=started, ended=ended, states=states, steps=steps,
                  contributor="" if contributor == "local" else contributor)
    task = None
    if run.status == "done" and task_steps and not unmatched:  # a demonstration with a gap is none
        task = Task(id=stable_id("task", "agent", trace_id), description=without_package(run.task, run.package),
                    package=run.package, source="agent", steps=task_steps)
    outcome = None
    if run.recalled_task is not None and run.status != "stopped":  # one outcome per contributor and task
        outcome = {"id": stable_id("taskrun", run.recalled_task, contributor), "task_id": run.recalled_task,
                   "contributor": contributor, "ok": run.status == "done", "at": ended}
    return RunImport(trace, task, unmatched, outcome)
