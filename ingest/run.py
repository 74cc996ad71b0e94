"""Executed agent runs (`contract.RunTrace`) → a Trace of source "agent", plus a Task when done.

    {"format": "appmem-run/1", "task", "package", "app_version", "device", "started", "ended",
     "status": "done|failed|stopped",
     "steps": [{"index", "action", "element": {"text","content_desc","resource_id","class_name","bounds"} | null,
                "input", "before_xml" | "before_png", "after_xml" | "after_png", "tap"?,
                "before_activity"?, "after_activity"?,
                "expected_screen", "reached_screen", "outcome": "ok|no_effect|crash|missed"}]}

`before_activity` / `after_activity` (optional) are the foreground activities: a
screen's id includes its activity, so with them a run's screens merge with the
crawled and imported ones. Each step's states come from its uiautomator dumps;
its element is found in the `before` dump by resource id, texts and bounds. A
step whose outcome is not "ok" becomes a failure on its edge. A "done" run is
also a demonstration: a Task (source "agent") of its successful steps.
A failed step that names its `expected_screen` counts as a failure of the edge
to that screen (the one the plan meant), not of the one the device took.

A step seen only in screenshots (`before_png` / `after_png`: an agent without a view tree) is placed by a
`ScreenFinder` (agent/pixelruns.py, which the ingest worker passes in): each screenshot is located among
the app's remembered screens, and the step acted on the remembered element under its tap point (scaled
by the screenshot's size against the recorded screen's). The step then refers to memory's own screens and
elements (`Trace.located`) and counts like any other: an observation on the edge, the contributor's vote.
A screenshot that shows no remembered screen, or a tap on no remembered element, keeps the step out
with the reason. Without a finder (`appmem import-run`, the API's check) screenshots are only decoded.

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

from typing import Callable

from pydantic import ValidationError

from appmem.errors import InputFormatError
from appmem.contract.run import RunElement, RunStep, RunTrace
from appmem.formats.image import decode_image, from_base64
from appmem.formats.ui import Action, ActionType, stable_id, UIState, View
from appmem.graph.model import Element, LocatedScreen, Outcome, Screen, Step, Task, TaskStep, Trace
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


@dataclass(frozen=True)
class Sighting:
    """A screenshot located among an app's remembered screens: the screen, its remembered elements (memory's
    pixels) and the screenshot's pixels per memory pixel."""

    screen: Screen
    elements: list[Element]
    scale: float


# (package, the screenshot's bytes, where it was sent) → where memory has seen it, or None
ScreenFinder = Callable[[str, bytes, str], Sighting | None]
FITS = {ActionType.TAP: "clickable", ActionType.LONG_TAP: "long_clickable", ActionType.INPUT: "editable",
        ActionType.SCROLL: "scrollable"}


def element_at(sighting: Sighting, x: float, y: float, kind: ActionType) -> Element | None:
    """The remembered element under (x, y) (the screenshot's pixels): the smallest that takes the action
    (a tap's clickable, a field's editable), else the smallest there."""
    mx, my = round(x / sighting.scale), round(y / sighting.scale)
    under = [e for e in sighting.elements if e.bounds.area and e.bounds.contains(mx, my)]
    fitting = [e for e in under if FITS.get(kind) in e.flags]
    return min(fitting or under, key=lambda e: (e.bounds.area, e.id), default=None)


def tap_of(step: RunStep) -> tuple[float, float] | None:
    """Where a pixel step acted, in its before screenshot's pixels: its `tap`, else its element's centre."""
    if step.tap is not None:
        return step.tap[0], step.tap[1]
    if step.element is not None and any(step.element.bounds):
        left, top, right, bottom = step.element.bounds
        return (left + right) / 2, (top + bottom) / 2
    return None


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
               progress=None, weight: float = 1.0, find: ScreenFinder | None = None) -> tuple[dict, RunImport]:
    """Write a run into the graph: its trace, its Task when done, failures on the edges it missed, its
    outcome for the stored task it replayed. `contributor`: the API key id, or "local" (one's own run);
    `quorum`: APPMEM_TRUST_QUORUM; `progress(done, chunks)` after each chunk written (it may raise to
    stop); `weight`: the contributor's voice on the edges (graph/votes.py); `find` locates its screenshots.
    Returns the report and what was imported."""
    from appmem.ingest.pipeline import ingest_tasks, ingest_trace

    require_app(store, run)
    imported = run_trace(run, contributor, find)
    imported.trace.weight = weight
    report = ingest_trace(store, imported.trace, chunk_steps, progress, quorum).as_dict()
    if imported.task is not None:
        ingest_tasks(store, [imported.task], imported.trace)
    return {**report, "task": imported.task.id if imported.task else None,
            "failed_steps": sum(s.outcome != "ok" for s in run.steps),
            "missed_edges": sum(s.outcome != "ok" and bool(s.expected_screen) for s in run.steps),
            "unmatched_steps": imported.unmatched,
            "pixel_steps": sum(s.source_state in imported.trace.located for s in imported.trace.steps),
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


class _Screens:
    """A run's states as its steps name them: a dump's state (by its state id), or a screenshot's located
    remembered screen ("pixels:" + its id) when a `find`er is given."""

    def __init__(self, run: RunTrace, find: ScreenFinder | None):
        self.run, self.find = run, find
        self.states: dict[str, UIState] = {}
        self.located: dict[str, LocatedScreen] = {}
        self.sightings: dict[str, Sighting] = {}

    def of_xml(self, xml: str, activity: str, where: str) -> str:
        try:  # the dump's own package: a step may leave the app (launcher, share sheet)
            node = next((n for n in ET.fromstring(xml).iter("node") if n.get("package")), None)
        except ET.ParseError:  # parse_hierarchy reports it with its place
            node = None
        state = parse_hierarchy(xml, node.get("package") if node is not None else self.run.package, activity,
                                where=where)
        return self.states.setdefault(state.state_id, state).state_id

    def of_png(self, png: str, where: str) -> str | None:
        """The located screen's state id; None when not located (or no finder: the image is only checked)."""
        data = from_base64(png, where)
        if self.find is None:
            decode_image(data, where)
            return None
        sighting = self.find(self.run.package, data, where)
        if sighting is None:
            return None
        sid = "pixels:" + sighting.screen.id
        self.located.setdefault(sid, LocatedScreen(sighting.screen))
        self.sightings[where] = sighting
        return sid

    def side(self, step: RunStep, side: str) -> str | None:
        where = f"run step {step.index} {side}"
        png = getattr(step, f"{side}_png")
        if png is not None:
            return self.of_png(png, where + "_png")
        return self.of_xml(getattr(step, f"{side}_xml"), getattr(step, f"{side}_activity"), where + "_xml")

    def element_key(self, step: RunStep, before: str, kind: ActionType) -> str | None:
        """The key of the element the step acted on in its before state; None when it is not there."""
        if before in self.located:
            sighting = self.sightings[f"run step {step.index} before_png"]
            point = tap_of(step)
            element = element_at(sighting, *point, kind) if point is not None else None
            if element is None:
                return None
            self.located[before].elements.setdefault(element.key, element)
            return element.key
        state = self.states[before]
        index = _view_index(state, step.element) if step.element is not None else None
        return view_paths(state.views)[index] if index is not None else None


def run_trace(run: RunTrace, contributor: str = "local", find: ScreenFinder | None = None) -> RunImport:
    """The run as a Trace (source "agent") and its Task for a done run; `contributor` is the API key id of
    a contribution ("local": one's own run, trusted like an import). A failed step with an
    `expected_screen` is a failure of the edge to that screen (graph/rows.py), else of the edge it took.
    `find` locates the steps' screenshots (without it they are decoded, to check them, and kept out)."""
    trace_id = stable_id("trace", "agent", contributor, run.package, run.device, run.started, run.task)
    # The times in canonical UTC (graph/times.py), the one form the graph's datetime() reads: this runs at the
    # API's edge too, so a time it cannot read is a 422 there, not a contribution failed by the worker after
    # its 202. (The id keeps the run's own text: a run sent again maps to the trace it made before.)
    started, ended = utc_iso(run.started, "started"), utc_iso(run.ended, "ended")
    screens = _Screens(run, find)
    steps: list[Step] = []
    task_steps: list[TaskStep] = []
    unmatched: list[dict] = []
    for step in run.steps:
        where = f"run step {step.index}"
        before, after = screens.side(step, "before"), screens.side(step, "after")
        if before is None or after is None:
            side = "before" if before is None else "after"
            unmatched.append({"index": step.index, "reason": f"{where}: its {side} screenshot shows no remembered "
                              f"screen of {run.package}" if find else f"{where}: screenshots are located only by "
                              "the API's ingest worker (POST /v1/traces)"})
            continue
        kind = ActionType(step.action)
        detail = step.input if kind in (ActionType.INPUT, ActionType.SCROLL, ActionType.START_APP) else ""
        action = Action(kind, text=detail)
        if kind.needs_element and (step.element is not None or (before in screens.located and step.tap)):
            key = screens.element_key(step, before, kind)
            if key is None:  # kept with the reason; the rest of the run is still imported
                unmatched.append({"index": step.index, "reason": f"{where}: its element is not in its before_xml dump"
                                  if before in screens.states else f"{where}: no remembered element of its before "
                                  "screenshot's screen is under its tap point"})
                continue
            action.element_key = key
        steps.append(Step(step.index, before, action, after, outcome=Outcome(step.outcome),
                          at=ended, expected_screen=step.expected_screen or ""))
        if step.outcome == "ok":
            task_steps.append(TaskStep(before, action))
    trace = Trace(id=trace_id, source="agent", package=run.package, app_version=run.app_version, device=run.device,
                  explorer="appmem-run", started=started, ended=ended, states=screens.states, steps=steps,
                  contributor="" if contributor == "local" else contributor, located=screens.located)
    task = None
    if run.status == "done" and task_steps and not unmatched:  # a demonstration with a gap is none
        task = Task(id=stable_id("task", "agent", trace_id), description=without_package(run.task, run.package),
                    package=run.package, source="agent", steps=task_steps)
    outcome = None
    if run.recalled_task is not None and run.status != "stopped":  # one outcome per contributor and task
        outcome = {"id": stable_id("taskrun", run.recalled_task, contributor), "task_id": run.recalled_task,
                   "contributor": contributor, "ok": run.status == "done", "at": ended}
    return RunImport(trace, task, unmatched, outcome)
