"""AutoDroid memory (`utg.yaml`) and DroidTask gold traces (`tasks.json`) → domain Traces and Tasks.

An AutoDroid folder holds either file or both:
- `utg.yaml`: `records: [{State, Choice, Input, state_str, new_state_str}]`, the
  exploration memory. A record is a screen (AutoDroid HTML, see
  `formats.autodroid_html`) and the action taken on it. The action's target is not
  written down, but the records form one chain: record i+1's State is the screen
  that record i's action led to (checked against the gold traces, whose
  transitions it reproduces up to dynamic content). A Step is made only where
  both ends are known: an action on the last record has no target.
- `tasks.json`: `[{task_id, task, step_num, profile: [{state, label: [id, input]}]}]`,
  gold demonstrations. Each becomes a Task, and together they are a second trace:
  the target of profile step k is profile state k+1. `label[0] == -1` ends a task.
  DroidTask's `task_id` is the sha256 of the task text alone, so two apps with the
  same task text ("Change theme color to light") share it: a Task's id is scoped
  to its package (`task_id_of`), else the second app's task would overwrite the first.

The hashes (`state_str`, `new_state_str`) follow other schemes and are ignored:
a state's id hashes its canonical HTML, its screen comes from the HTML's
static structure. The app is named on the command line; the six DroidTask
Simple Mobile Tools apps map to their package ids, any other name is used as
the package. The format carries no activity: one constant activity per app.
Every problem names its file and record; a malformed record or task is left
out (and listed in `problems`), the rest of the file is imported.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from appmem.errors import InputFormatError, InvalidInput
from appmem.formats.ui import Action, ActionType, stable_id, UIState
from appmem.graph.model import Step, Task, TaskStep, Trace
from appmem.graph.screens import view_paths
from appmem.graph.vocabulary import clean_all
from appmem.formats.autodroid_html import HtmlElement, HtmlSyntaxError, parse_html, state_from_elements
from appmem.ingest.droidbot import read_json

APP_PACKAGES = {
    "calendar": "com.simplemobiletools.calendar.pro",
    "clock": "com.simplemobiletools.clock",
    "contacts": "com.simplemobiletools.contacts.pro",
    "notes": "com.simplemobiletools.notes.pro",
    "camera": "com.simplemobiletools.camera.pro",
    "applauncher": "com.simplemobiletools.applauncher",
}
MEMORY_FILE = "utg.yaml"
TASKS_FILE = "tasks.json"
NO_INPUT = "null"
SCROLL_DIRECTION = "DOWN"  # AutoDroid names a scroller, not a direction


@dataclass
class AutodroidImport:
    """What an AutoDroid folder holds: the exploration trace, the demonstration trace and the tasks."""

    trace: Trace | None  # utg.yaml
    demo_trace: Trace | None  # tasks.json
    tasks: list[Task]
    # Records and tasks left out as malformed, each naming its file and record: the rest is imported.
    problems: list[InputFormatError] = field(default_factory=list)


@dataclass
class Observation:
    """A parsed AutoDroid state: the UIState, its elements by id, their element keys by id."""

    state: UIState
    elements: dict[int, HtmlElement]
    keys: dict[int, str]


def package_of(app: str) -> str:
    return APP_PACKAGES.get(app.strip().lower(), app.strip())


def task_id_of(package: str, task_id: str) -> str:
    """The Task id of DroidTask task `task_id` of `package`: unique across apps."""
    return stable_id("droidtask-task", package, task_id)


def activity_of(package: str) -> str:
    """A constant per app: the format has no activity, and a varying one would split screens."""
    return f"{package}.MainActivity"


def observe(html: Any, package: str, where: str, context: str) -> Observation:
    if not isinstance(html, str):
        raise InputFormatError(where, f"{context}: state is {type(html).__name__}, not an HTML string")
    try:
        elements = parse_html(html)
    except HtmlSyntaxError as exc:
        raise InputFormatError(where, f"{context}: unparsable state: {exc}") from None
    state = state_from_elements(elements, package, activity_of(package))
    return Observation(state, {e.id: e for e in elements}, view_paths(state.views))


def typed_text(value: Any, where: str, context: str) -> str | None:
    """AutoDroid's Input / label[1]: 'null' (or null) for none, else the text typed."""
    if value is None or value == NO_INPUT:
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise InputFormatError(where, f"{context}: input {value!r} is not a text")
    return str(value)


def action_on(obs: Observation, choice: int, text: str | None, where: str, context: str) -> Action:
    """The action of choosing element `choice` (typing `text`, if any) on an observed state."""
    element = obs.elements.get(choice)
    if element is None:
        raise InputFormatError(where, f"{context}: element id {choice} is not in its state")
    if element.is_back:
        return Action(ActionType.BACK)
    key = obs.keys[choice]
    if text is not None:
        return Action(ActionType.INPUT, key, text)
    if element.tag == "scroller":
        return Action(ActionType.SCROLL, key, SCROLL_DIRECTION)
    return Action(ActionType.TAP, key)


def element_id(value: Any, where: str, context: str) -> int:
    """A chosen element id: a non-negative int, or -1 for none."""
    if isinstance(value, bool) or not isinstance(value, int) or value < -1:
        raise InputFormatError(where, f"{context}: element id {value!r} is neither -1 nor an id")
    return value


def field_of(record: Any, name: str, where: str, context: str) -> Any:
    if not isinstance(record, dict):
        raise InputFormatError(where, f"{context} is {type(record).__name__}, not a mapping")
    if name not in record:
        raise InputFormatError(where, f"{context}: missing field {name!r}")
    return record[name]


def content_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def new_trace(source: str, package: str, version: str, path: Path) -> Trace:
    return Trace(
        id=stable_id("trace", source, package, version, content_hash(path)),
        source=source,
        package=package,
        app_version=version,
        device="unknown",
        explorer=source,
        started="",
        ended="",
    )


def load_yaml(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputFormatError(str(path), f"cannot be read: {exc}") from None
    try:
        return clean_all(yaml.safe_load(text))  # YAML escapes can carry lone surrogates and NULs
    except yaml.YAMLError as exc:
        raise InputFormatError(str(path), "malformed YAML: " + " ".join(str(exc).split())) from None


def read_memory(path: Path, package: str, app_version: str, problems: list[InputFormatError]) -> Trace:
    """utg.yaml → the exploration Trace: every record's state, a Step per record
    whose action has a known target (the next record's state). A malformed
    record is left out (no step to or from it) and added to `problems`; a file
    whose every record is malformed is an error."""
    where = str(path)
    raw = load_yaml(path)
    records = raw.get("records") if isinstance(raw, dict) else None
    if not isinstance(records, list):
        raise InputFormatError(where, "not AutoDroid memory: expected a mapping with a 'records' list")
    trace = new_trace("autodroid", package, app_version, path)
    observed: list[Observation | None] = []
    actions: list[Action | None] = []
    bad: list[InputFormatError] = []
    for i, record in enumerate(records):
        context = f"record {i}"
        try:
            obs = observe(field_of(record, "State", where, context), package, where, context)
            choice = element_id(field_of(record, "Choice", where, context), where, f"{context}: Choice")
            text = typed_text(field_of(record, "Input", where, context), where, f"{context}: Input")
            action = None if choice < 0 else action_on(obs, choice, text, where, f"{context}: Choice")
        except InputFormatError as exc:
            bad.append(exc)
            observed.append(None)
            actions.append(None)
            continue
        actions.append(action)
        observed.append(obs)
        trace.states.setdefault(obs.state.state_id, obs.state)
    if bad and len(bad) == len(records):
        raise bad[0] if len(bad) == 1 else InputFormatError(
            where, f"every record is malformed; first: {bad[0].problem}")
    problems += bad
    for i, action in enumerate(actions[:-1]):
        source, target = observed[i], observed[i + 1]
        if action is not None and source is not None and target is not None:
            trace.steps.append(Step(i, source.state.state_id, action, target.state.state_id))
    return trace


def read_tasks(path: Path, package: str, app_version: str,
               problems: list[InputFormatError]) -> tuple[Trace, list[Task]]:
    """tasks.json → (the demonstration Trace, the Tasks). A malformed task is left
    out whole (its states and steps too) and added to `problems`; a file whose
    every task is malformed is an error."""
    where = str(path)
    raw = read_json(path)
    if not isinstance(raw, list):
        raise InputFormatError(where, f"top level is {type(raw).__name__}, not a list of tasks")
    trace = new_trace("droidtask", package, app_version, path)
    tasks: list[Task] = []
    bad: list[InputFormatError] = []
    for j, entry in enumerate(raw):
        try:
            task, states, steps = _read_task(entry, f"task {j}", package, where)
        except InputFormatError as exc:
            bad.append(exc)
            continue
        for state in states:
            trace.states.setdefault(state.state_id, state)
        for source, action, target in steps:
            trace.steps.append(Step(len(trace.steps), source, action, target))
        tasks.append(task)
    if bad and len(bad) == len(raw):
        raise bad[0] if len(bad) == 1 else InputFormatError(
            where, f"every task is malformed; first: {bad[0].problem}")
    problems += bad
    return trace, tasks


def _read_task(entry: Any, context: str, package: str,
               where: str) -> tuple[Task, list[UIState], list[tuple[str, Action, str]]]:
    """One DroidTask entry → its Task, the states of its profile, its (source, action, target) steps."""
    task_id = field_of(entry, "task_id", where, context)
    description = field_of(entry, "task", where, context)
    profile = field_of(entry, "profile", where, context)
    if not isinstance(task_id, str) or not isinstance(description, str) or not isinstance(profile, list):
        raise InputFormatError(where, f"{context}: task_id and task must be strings, profile a list")
    task = Task(id=task_id_of(package, task_id), description=description, package=package, source="droidtask", steps=[])
    states: list[UIState] = []
    steps: list[tuple[str, Action, str]] = []
    previous: tuple[Observation, Action] | None = None
    for k, step in enumerate(profile):
        step_context = f"{context} profile step {k}"
        obs = observe(field_of(step, "state", where, step_context), package, where, step_context)
        states.append(obs.state)
        if previous is not None:
            source, action = previous
            steps.append((source.state.state_id, action, obs.state.state_id))
        label = field_of(step, "label", where, step_context)
        if not isinstance(label, list) or not label:
            raise InputFormatError(where, f"{step_context}: label {label!r} is not [element_id, input]")
        choice = element_id(label[0], where, f"{step_context}: label")
        if choice < 0:
            break
        text = typed_text(label[1] if len(label) > 1 else None, where, f"{step_context}: label")
        action = action_on(obs, choice, text, where, f"{step_context}: label")
        task.steps.append(TaskStep(obs.state.state_id, action))
        previous = (obs, replace(action))
    return task, states, steps


def read_autodroid(folder: Path, app: str, app_version: str | None = None) -> AutodroidImport:
    """An AutoDroid/DroidTask app folder → its traces and tasks."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputFormatError(str(folder), "not a folder")
    memory, tasks_file = folder / MEMORY_FILE, folder / TASKS_FILE
    if not memory.is_file() and not tasks_file.is_file():
        raise InputFormatError(str(folder), f"not an AutoDroid folder (no {MEMORY_FILE} or {TASKS_FILE})")
    package = package_of(app)
    if not package:
        raise InvalidInput(str(folder), "no app name given (--app)")
    version = app_version or "unknown"
    problems: list[InputFormatError] = []
    trace = read_memory(memory, package, version, problems) if memory.is_file() else None
    demo_trace, tasks = read_tasks(tasks_file, package, version, problems) if tasks_file.is_file() else (None, [])
    return AutodroidImport(trace=trace, demo_trace=demo_trace, tasks=tasks, problems=problems)
