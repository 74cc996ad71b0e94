"""A twin app: one recorded app as a replayable state machine.

A `TwinApp` owns the recorded states of one app (a DroidBot folder, or any
`UIState`s + `Step`s built in code), its transition table
(state id, action signature) → the recorded targets in recorded order (repeats
kept, so their proportions are the recording's: apps are not deterministic,
and DroidBot saw one action of one state lead to several states at different
times), its launch outcomes (every recorded START_APP target that is not a
home screen, in recorded order; the first is the entry state) and the
per-state hit-testing data (visible views with their structural keys and
depths). Each recorded input also keeps the state DroidBot showed before its
source (`Occurrence.before`) and each state DroidBot's `structure_str`, for the
`similar` replay mode (twins/replay.py). It is immutable once built and shared
by every device it is installed on (so are its renders and each replay mode's
look-ups, built on first use); devices choose among the recorded targets as
their replay mode says (device.py).

Recorded launcher screens (DroidBot's home screen between runs) are all folded
into the device's one synthetic launcher: a transition into any of them leads
to `LAUNCHER_STATE`.
"""
from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from appmem.errors import InputFormatError
from appmem.formats.ui import ActionType, Bounds, UIState, View
from appmem.graph.model import Step
from appmem.graph.screens import view_paths
from appmem.twins.profiles import Profile, Update, update
from appmem.ingest.droidbot import Recording, default_version, read_json, read_recording, recording_steps
from appmem.ingest.droidbot_events import action_from_event_str

log = logging.getLogger(__name__)

LAUNCHER_PACKAGE = "com.android.launcher3"
LAUNCHER_ACTIVITY = "com.android.launcher3.Launcher"
LAUNCHER_STATE = "launcher"
DEFAULT_SIZE = (1080, 1920)


@dataclass(frozen=True)
class Occurrence:
    """One recorded input's outcome: where it led, and the state the recording showed before its
    source (None after a jump in the recorded walk: a restart)."""

    target: str
    before: str | None


@dataclass(frozen=True)
class PlacedView:
    """A visible view of a state, ready for hit testing."""

    view: View
    key: str  # structural path (graph.screens.view_paths), the Action.element_key
    depth: int


@dataclass
class TwinApp:
    """One installed app of a twin device. Build it with `from_droidbot` or `from_steps`."""

    package: str
    version: str  # versionName, as `dumpsys package` reports it
    label: str
    states: dict[str, UIState]
    transitions: dict[tuple[str, str], tuple[str, ...]]  # (state id, Action.signature) → recorded targets
    launches: tuple[str, ...]  # where recorded launches landed, in order
    width: int
    height: int
    placed: dict[str, list[PlacedView]] = field(repr=False)
    acted: dict[tuple[str, ActionType], frozenset[str]] = field(repr=False)  # element keys with a recorded action
    renders: dict[str, str | bytes] = field(default_factory=dict, repr=False)  # XML/PNG per state, filled lazily
    lookups: dict[str, object] = field(default_factory=dict, repr=False)  # replay mode → its look-ups (replay.py)
    version_code: int = 1
    sha256: str = ""  # the recorded APK's hash ("sha256:..." as DroidBot imports name it), when known
    profile: Profile = Profile()
    updates: list[Update] = field(default_factory=list, repr=False)
    occurrences: dict[tuple[str, str], tuple[Occurrence, ...]] = field(default_factory=dict, repr=False)
    structures: dict[str, str] = field(default_factory=dict, repr=False)  # DroidBot's structure_str per state

    @classmethod
    def from_droidbot(cls, folder: Path | str, label: str | None = None, profile: Profile = Profile(),
                      version: int = 1) -> "TwinApp":
        """Load a DroidBot output folder (read in place, never copied), as `profile` shows it,
        updated to `version` (1: the recorded app)."""
        rec = read_recording(Path(folder))
        if not rec.package:
            raise InputFormatError(str(Path(folder) / "utg.js"), "no app_package: cannot install it as a twin")
        states, steps, updates = update(rec.package, rec.states, recording_steps(rec), version, profile.seed)
        structures = {n["state_str"]: n["structure_str"] for n in rec.nodes
                      if isinstance(n, dict) and n.get("state_str") and n.get("structure_str")}
        app = cls.from_steps(rec.package, f"{version}.0", states, steps, label=label, profile=profile,
                             structures=structures, befores=recorded_befores(rec))
        app.version_code, app.sha256, app.updates = version, default_version(rec.meta), updates
        return app

    @classmethod
    def from_steps(cls, package: str, version: str, states: dict[str, UIState], steps: list[Step],
                   label: str | None = None, profile: Profile = Profile(),
                   structures: dict[str, str] | None = None,
                   befores: dict[tuple[str, str, str], list[str | None]] | None = None) -> "TwinApp":
        """Build a twin from recorded states and steps (in the order they were taken),
        shown as `profile` shows them; `structures`: DroidBot's structure_str of the states
        (a state without one is a structure of its own); `befores`: (source, action signature,
        target) → the state shown before the source, per recorded event in time order (else
        the steps' own order is the recorded walk)."""
        if not states:
            raise InputFormatError(package, "a twin app needs at least one state")

        def resolve(state_id: str) -> str:
            state = states.get(state_id)
            if state is None:
                raise InputFormatError(package, f"step names unknown state {state_id!r}")
            return LAUNCHER_STATE if state.package == LAUNCHER_PACKAGE else state_id

        occurrences: dict[tuple[str, str], list[Occurrence]] = {}
        acted: dict[tuple[str, ActionType], set[str]] = {}
        launches: list[str] = []
        here, before = None, None  # the recorded walk: where DroidBot was, and the other state it showed before
        pending = {k: list(v) for k, v in (befores or {}).items()}
        for step in steps:
            src, dst = resolve(step.source_state), resolve(step.target_state)
            if befores is None:  # the steps are the walk
                came_from = before if src == here else None  # a jump in the walk (a restart): unknown
                here, before = dst, (src if dst != src else came_from)
            else:
                told = pending.get((step.source_state, step.action.signature, step.target_state))
                came_from = told.pop(0) if told else None
                came_from = resolve(came_from) if came_from in states else None
            if step.action.type == ActionType.START_APP and dst != LAUNCHER_STATE:
                launches.append(dst)
            if src == LAUNCHER_STATE:
                continue  # the synthetic launcher replaces the recorded ones
            occurrences.setdefault((src, step.action.signature), []).append(Occurrence(dst, came_from))
            if step.action.element_key:
                acted.setdefault((src, step.action.type), set()).add(step.action.element_key)
        app_states = {sid: s for sid, s in states.items() if s.package != LAUNCHER_PACKAGE}
        if not app_states:
            raise InputFormatError(package, "every recorded state is a launcher screen")
        width, height = _screen_size(app_states.values())
        app_states = profile.apply(app_states, width, height)
        width, height = profile.display[:2] if profile.display else (width, height)
        return cls(
            package=package,
            version=version,
            label=label or package.rsplit(".", 1)[-1].capitalize(),
            states=app_states,
            transitions={k: tuple(o.target for o in v) for k, v in occurrences.items()},
            launches=tuple(launches) or (_first_state(app_states, package),),
            width=width,
            height=height,
            placed={sid: place_views(s) for sid, s in app_states.items()},
            acted={k: frozenset(v) for k, v in acted.items()},
            profile=profile,
            occurrences={k: tuple(v) for k, v in occurrences.items()},
            structures={sid: (structures or {}).get(sid, sid) for sid in app_states},
        )

    @property
    def entry(self) -> str:
        """Where the first launch lands."""
        return self.launches[0]

    def targets(self, state_id: str, signature: str) -> tuple[str, ...]:
        """The recorded targets of an action from a state, in recorded order (empty when none was recorded)."""
        return self.transitions.get((state_id, signature), ())


def recorded_befores(rec: Recording) -> dict[tuple[str, str, str], list[str | None]]:
    """(source, action signature, target) → the state DroidBot showed before the source, one per
    recorded event, in time order: from the events/ folder (one file per event, named by time),
    as utg.js's event ids do not keep the order (a dialog's answer can sort before its opener)."""
    paths: dict[str, dict[int, str]] = {}
    out: dict[tuple[str, str, str], list[str | None]] = {}
    here = before = None
    for path in sorted((rec.folder / "events").glob("event_*.json")):
        raw = read_json(path)
        src, dst, event = raw.get("start_state"), raw.get("stop_state"), raw.get("event_str")
        if src not in rec.states or dst not in rec.states or not isinstance(event, str):
            here = before = None
            continue
        came_from = before if src == here else None
        here, before = dst, (src if dst != src else came_from)
        try:
            # typed text is no part of an action's signature
            action, view = action_from_event_str(event, rec.states[src], rec.view_strs[src], str(path), {})
        except InputFormatError:
            continue  # an event the importer does not take is no step of the twin either
        if view is not None:
            if src not in paths:
                paths[src] = view_paths(rec.states[src].views)
            action.element_key = paths[src][view]
        out.setdefault((src, action.signature, dst), []).append(came_from)
    return out


def _first_state(states: dict[str, UIState], package: str) -> str:
    """Without a recorded launch: the earliest observed state of the app itself."""
    ordered = sorted(states.values(), key=lambda s: s.observed_at)
    own = [s for s in ordered if s.package == package]
    return (own or ordered)[0].state_id


def _screen_size(states: Iterable[UIState]) -> tuple[int, int]:
    """The display size: the most common full-screen root bounds. DroidBot's
    state `width`/`height` fields report the panel in another orientation, so
    the views are the reliable witness."""
    sizes: Counter[tuple[int, int]] = Counter()
    for state in states:
        for v in state.views:
            if v.parent < 0 and v.bounds.left == 0 and v.bounds.top == 0 and v.bounds.area > 0:
                sizes[(v.bounds.right, v.bounds.bottom)] += 1
    return sizes.most_common(1)[0][0] if sizes else DEFAULT_SIZE


def place_views(state: UIState) -> list[PlacedView]:
    """Visible views in pre-order (later = drawn on top) with their key and depth.
    A view under an invisible parent is not visible either."""
    paths = view_paths(state.views)
    by_index = {v.index: v for v in state.views}
    out: list[PlacedView] = []

    def walk(view: View, depth: int) -> None:
        if not view.visible:
            return
        out.append(PlacedView(view, paths.get(view.index, ""), depth))
        for child in view.children:
            if child in by_index:
                walk(by_index[child], depth + 1)

    for root in (v for v in state.views if v.parent < 0 or v.parent not in by_index):
        walk(root, 0)
    return out


def launcher_state(apps: list[TwinApp], width: int, height: int) -> tuple[UIState, dict[str, str]]:
    """The synthetic home screen: one clickable TextView per installed app.
    Returns the state and element key → package."""
    row = max(1, min(160, (height - 200) // max(1, len(apps))))
    views = [View(index=0, parent=-1, children=[1], class_name="android.widget.FrameLayout",
                  package=LAUNCHER_PACKAGE, bounds=Bounds(0, 0, width, height)),
             View(index=1, parent=0, children=list(range(2, 2 + len(apps))),
                  class_name="android.widget.LinearLayout", package=LAUNCHER_PACKAGE,
                  resource_id=f"{LAUNCHER_PACKAGE}:id/apps_list", bounds=Bounds(0, 100, width, height - 100))]
    for i, app in enumerate(apps):
        top = 100 + i * row
        views.append(View(index=2 + i, parent=1, children=[], class_name="android.widget.TextView",
                          package=LAUNCHER_PACKAGE, resource_id=f"{LAUNCHER_PACKAGE}:id/icon",
                          text=app.label, content_desc=app.label, bounds=Bounds(0, top, width, top + row),
                          clickable=True, focusable=True, long_clickable=True))
    state = UIState(package=LAUNCHER_PACKAGE, activity=LAUNCHER_ACTIVITY, views=views,
                    width=width, height=height, state_id=LAUNCHER_STATE)
    paths = view_paths(views)
    return state, {paths[2 + i]: app.package for i, app in enumerate(apps)}
