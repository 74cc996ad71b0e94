"""DroidBot output folders (utg.js, states/*.json, events/*.json) → domain Traces.

`utg.js` is complete (every effective event is listed on an edge); `states/`
gives the view trees; `events/` adds typed text and coordinates where present.
Every problem names the file it is in.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from appmem.errors import InputFormatError
from appmem.formats.ui import Bounds, stable_id, UIState, View, view_text
from appmem.graph.model import Step, Trace
from appmem.graph.screens import view_paths
from appmem.graph.times import utc_iso
from appmem.graph.vocabulary import UNSAFE, clean_all
from appmem.ingest.droidbot_events import action_from_event_str


@dataclass
class Recording:
    """A DroidBot output folder, parsed: metadata, states by state_str, raw views by state_str."""

    folder: Path
    meta: dict[str, Any]
    states: dict[str, UIState]
    view_strs: dict[str, dict[str, int]]  # state_str → view_str → view index
    edges: list[dict[str, Any]]
    nodes: list[dict[str, Any]]
    events: list[dict[str, Any]] = field(default_factory=list)  # events/*.json, in the order they happened

    @property
    def package(self) -> str:
        return self.meta.get("app_package") or ""

    @cached_property
    def paths(self) -> dict[str, dict[int, str]]:
        """state_str → view index → the view's structural key."""
        return {state_id: view_paths(state.views) for state_id, state in self.states.items()}

    @cached_property
    def typed(self) -> dict[str, str]:
        """event_str → the text actually typed (event files hold it untruncated)."""
        out: dict[str, str] = {}
        for raw in self.events:
            event = raw["event"]
            if event.get("event_type") == "set_text" and isinstance(raw.get("event_str"), str):
                out[raw["event_str"]] = str(event.get("text") or "")
        return out


MAX_JSON_BYTES = 64 * 1024 * 1024  # one utg.js or state file; a worker holds it whole while parsing
# What in a JSON text can decode to a character that `clean` removes: the character itself, or an
# escape of a control character, a surrogate or a non-character (\b and \f are controls too).
MAY_BE_UNSAFE = re.compile(UNSAFE.pattern + r"|\\(?:[bf]|u(?:00[01][0-9a-fA-F]|007[fF]|[dD][89a-fA-F]|[fF]{3}[eEfF]))")


def read_json(path: Path) -> Any:
    """One JSON document of the folder, bounded (MAX_JSON_BYTES, nesting): problems name the file."""
    try:
        if path.stat().st_size > MAX_JSON_BYTES:
            raise InputFormatError(str(path), f"larger than {MAX_JSON_BYTES} bytes")
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputFormatError(str(path), "file is missing") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputFormatError(str(path), f"cannot be read: {exc}") from None
    if path.suffix == ".js":
        start = text.find("{")
        if start < 0:
            raise InputFormatError(str(path), "no JSON object after 'var utg ='")
        text = text[start:]
    try:
        value = json.loads(text)
        # A "\ud800" escape decodes to a lone surrogate: nothing can store it. Cleaning walks every string of
        # the document (most of a recording's read time), so only documents that may hold one are walked.
        return clean_all(value) if MAY_BE_UNSAFE.search(text) else value
    except json.JSONDecodeError as exc:
        raise InputFormatError(str(path), f"malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise InputFormatError(str(path), "JSON nested too deeply") from None


def _require(obj: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if not isinstance(obj, dict) or key not in obj:
        raise InputFormatError(where, f"missing field {key!r}")
    value = obj[key]
    if not isinstance(value, kind):
        raise InputFormatError(where, f"field {key!r} has type {type(value).__name__}")
    return value


def split_activity(foreground: str, where: str) -> tuple[str, str]:
    """'pkg/.Act' or 'pkg/pkg.Act' → (pkg, fully qualified activity)."""
    if not foreground or "/" not in foreground:
        raise InputFormatError(where, f"foreground_activity {foreground!r} is not 'package/activity'")
    package, activity = foreground.split("/", 1)
    return package, package + activity if activity.startswith(".") else activity


def _text(raw: dict[str, Any], key: str) -> str:
    """A view's text field: a string, else "" (a hostile state file's number or list is no text)."""
    value = raw.get(key)
    return value if isinstance(value, str) else ""


def view_from_droidbot(raw: dict[str, Any], where: str) -> View:
    bounds = raw.get("bounds") or [[0, 0], [0, 0]]
    try:
        (x1, y1), (x2, y2) = bounds
        b = Bounds.read([int(x1), int(y1), int(x2), int(y2)])
    except (TypeError, ValueError, OverflowError):  # OverflowError: int() of JSON's 1e400 (infinity)
        b = None
    if b is None:
        raise InputFormatError(where, f"view {raw.get('temp_id')} has malformed bounds {bounds!r}")
    return View(
        index=_require(raw, "temp_id", int, where),
        parent=raw.get("parent") if isinstance(raw.get("parent"), int) else -1,
        children=[c for c in raw.get("children") or [] if isinstance(c, int)],
        class_name=_require(raw, "class", str, where),
        package=raw.get("package") or "",
        resource_id=raw.get("resource_id") or "",
        text=view_text(_text(raw, "text")),
        content_desc=view_text(_text(raw, "content_description")),
        bounds=b,
        visible=bool(raw.get("visible", True)),
        enabled=bool(raw.get("enabled", True)),
        clickable=bool(raw.get("clickable")),
        long_clickable=bool(raw.get("long_clickable")),
        checkable=bool(raw.get("checkable")),
        checked=bool(raw.get("checked")),
        scrollable=bool(raw.get("scrollable")),
        editable=bool(raw.get("editable")),
        focusable=bool(raw.get("focusable")),
        focused=bool(raw.get("focused")),
        selected=bool(raw.get("selected")),
        password=bool(raw.get("is_password")),
    )


def state_from_droidbot(raw: dict[str, Any], where: str) -> tuple[UIState, dict[str, int]]:
    """A DroidBot state JSON → (UIState, view_str → view index)."""
    state_str = _require(raw, "state_str", str, where)
    package, activity = split_activity(_require(raw, "foreground_activity", str, where), where)
    raw_views = _require(raw, "views", list, where)
    views = [view_from_droidbot(v, where) for v in raw_views]
    if cut_off := sorted({v.index for v in views} - set(view_paths(views))):  # every view hangs from a root
        raise InputFormatError(where, f"views {cut_off[:5]} hang from no root: their parent/children links form a cycle")
    view_strs = {v["view_str"]: v["temp_id"] for v in raw_views if isinstance(v.get("view_str"), str)}
    state = UIState(
        package=package,
        activity=activity,
        views=views,
        width=int(raw.get("width") or 1080),
        height=int(raw.get("height") or 1920),
        state_id=state_str,
        observed_at=utc_iso(raw.get("tag"), where),
    )
    return state, view_strs


def read_recording(folder: Path) -> Recording:
    folder = Path(folder)
    if not folder.is_dir():
        raise InputFormatError(str(folder), "not a folder")
    utg_path = folder / "utg.js"
    if not utg_path.exists():
        raise InputFormatError(str(folder), "not a DroidBot output folder (no utg.js)")
    utg = read_json(utg_path)
    nodes = _require(utg, "nodes", list, str(utg_path))
    edges = _require(utg, "edges", list, str(utg_path))
    meta = {k: v for k, v in utg.items() if k not in ("nodes", "edges")}
    states: dict[str, UIState] = {}
    view_strs: dict[str, dict[str, int]] = {}
    state_dir = folder / "states"
    if not state_dir.is_dir():
        raise InputFormatError(str(folder), "no states/ folder")
    for path in sorted(state_dir.glob("state_*.json")):
        state, vs = state_from_droidbot(read_json(path), str(path))
        states.setdefault(state.state_id, state)
        view_strs.setdefault(state.state_id, vs)
    for node in nodes:
        node_id = node.get("state_str") or node.get("id") if isinstance(node, dict) else None
        if node_id not in states:
            raise InputFormatError(str(utg_path), f"node {node_id!r} has no states/state_*.json file")
    events = []
    for path in sorted((folder / "events").glob("event_*.json")):
        raw = read_json(path)
        _require(raw, "event", dict, str(path))
        events.append(raw)
    return Recording(folder=folder, meta=meta, states=states, view_strs=view_strs, edges=edges, nodes=nodes,
                     events=events)


def recording_steps(rec: Recording) -> list[Step]:
    """All effective events of the UTG, in the order DroidBot sent them."""
    where = str(rec.folder / "utg.js")
    out: list[Step] = []
    for edge in rec.edges:
        src, dst = edge.get("from"), edge.get("to")
        if src not in rec.states or dst not in rec.states:
            raise InputFormatError(where, f"edge {src!r} -> {dst!r} names a state with no states/ file")
        for ev in edge.get("events") or []:
            event_str = ev.get("event_str")
            if not isinstance(event_str, str):
                raise InputFormatError(where, f"edge {src} -> {dst} has an event without event_str")
            out.append(event_step(rec, int(ev.get("event_id") or 0), src, event_str, dst, where))
    out.sort(key=lambda step: step.index)
    return out


def recording_history(rec: Recording) -> list[Step]:
    """The events as they happened (events/, in time order), for order-2 outcomes (graph/follows.py): the UTG
    lists each distinct event once. Events on states with no states/ file are left out, not refused."""
    where = str(rec.folder / "events")
    out: list[Step] = []
    for index, raw in enumerate(rec.events):
        src, dst, event_str = raw.get("start_state"), raw.get("stop_state"), raw.get("event_str")
        if src in rec.states and dst in rec.states and isinstance(event_str, str):
            try:
                out.append(event_step(rec, index, src, event_str, dst, where))
            except InputFormatError:  # an event the UTG does not list either: no history, not a refusal
                continue
    return out


def event_step(rec: Recording, index: int, src: str, event_str: str, dst: str, where: str) -> Step:
    """One DroidBot event from state `src` to `dst` as a Step."""
    action, view_index = action_from_event_str(event_str, rec.states[src], rec.view_strs[src], where, rec.typed)
    if view_index is not None:
        action.element_key = rec.paths[src][view_index]
    return Step(index, src, action, dst)


def default_version(meta: dict[str, Any]) -> str:
    sha = meta.get("app_sha256")  # a contributed archive's: shown as its version, so hex only
    return f"sha256:{sha[:12]}" if isinstance(sha, str) and re.fullmatch(r"[0-9a-fA-F]{12,}", sha) else "unknown"


def recording_trace(rec: Recording, package: str | None = None, app_version: str | None = None,
                    device: str | None = None) -> Trace:
    package = package or rec.package
    if not package:
        raise InputFormatError(str(rec.folder / "utg.js"), "no app_package; pass --package")
    version = app_version or default_version(rec.meta)
    device = device or str(rec.meta.get("device_serial") or rec.meta.get("device_model_number") or "unknown")
    test_date = str(rec.meta.get("test_date") or "")  # the id keeps the raw form: re-imports stay no-ops
    started = utc_iso(test_date, str(rec.folder / "utg.js"))
    trace = Trace(
        id=stable_id("trace", "droidbot", package, version, device, test_date, rec.meta.get("num_transitions")),
        source="droidbot",
        package=package,
        app_version=version,
        device=device,
        explorer="droidbot",
        started=started,
        ended=started,
        states=rec.states,
        steps=recording_steps(rec),
        history=recording_history(rec),
    )
    return trace

