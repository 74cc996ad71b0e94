"""A twin app: one recorded app as a replayable state machine.

A `TwinApp` owns the recorded states of one app (a DroidBot folder, or any
`UIState`s + `Step`s built in code), its transition table
(state id, action signature) → target state (the most frequent recorded
target; ties go to the first seen), its entry state (where a launch lands) and
the per-state hit-testing data (visible views with their structural keys and
depths). It is immutable once built and shared by every device it is installed on.

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
from graph.model import ActionType, Bounds, Step, UIState, View
from graph.screens import view_paths
from ingest.droidbot import default_version, read_recording, recording_steps

log = logging.getLogger(__name__)

LAUNCHER_PACKAGE = "com.android.launcher3"
LAUNCHER_ACTIVITY = "com.android.launcher3.Launcher"
LAUNCHER_STATE = "launcher"
DEFAULT_SIZE = (1080, 1920)


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
    version: str
    label: str
    states: dict[str, UIState]
    transitions: dict[tuple[str, str], str]  # (state id, Action.signature) → target state id
    entry: str  # the state a launch lands on
    width: int
    height: int
    placed: dict[str, list[PlacedView]] = field(repr=False)
    acted: dict[tuple[str, ActionType], frozenset[str]] = field(repr=False)  # element keys with a recorded action
    renders: dict[str, str | bytes] = field(default_factory=dict, repr=False)  # XML/PNG per state, filled lazily

    @classmethod
    def from_droidbot(cls, folder: Path | str, label: str | None = None) -> "TwinApp":
        """Load a DroidBot output folder (read in place, never copied)."""
        rec = read_recording(Path(folder))
        if not rec.package:
            raise InputFormatError(str(Path(folder) / "utg.js"), "no app_package: cannot install it as a twin")
        return cls.from_steps(rec.package, default_version(rec.meta), rec.states, recording_steps(rec), label=label)

    @classmethod
    def from_steps(cls, package: str, version: str, states: dict[str, UIState], steps: list[Step],
                   label: str | None = None) -> "TwinApp":
        """Build a twin from recorded states and steps (in the order they were taken)."""
        if not states:
            raise InputFormatError(package, "a twin app needs at least one state")

        def resolve(state_id: str) -> str:
            state = states.get(state_id)
            if state is None:
                raise InputFormatError(package, f"step names unknown state {state_id!r}")
            return LAUNCHER_STATE if state.package == LAUNCHER_PACKAGE else state_id

        counts: dict[tuple[str, str], Counter[str]] = {}
        acted: dict[tuple[str, ActionType], set[str]] = {}
        entry = ""
        fallback_entry = ""
        for step in steps:
            src, dst = resolve(step.source_state), resolve(step.target_state)
            if step.action.type == ActionType.START_APP and dst != LAUNCHER_STATE:
                if src == LAUNCHER_STATE and not entry:
                    entry = dst
                fallback_entry = fallback_entry or dst
            if src == LAUNCHER_STATE:
                continue  # the synthetic launcher replaces the recorded ones
            counts.setdefault((src, step.action.signature), Counter())[dst] += 1
            if step.action.element_key:
                acted.setdefault((src, step.action.type), set()).add(step.action.element_key)
        transitions = {k: c.most_common(1)[0][0] for k, c in counts.items()}
        app_states = {sid: s for sid, s in states.items() if s.package != LAUNCHER_PACKAGE}
        if not app_states:
            raise InputFormatError(package, "every recorded state is a launcher screen")
        entry = entry or fallback_entry or _first_state(app_states, package)
        width, height = _screen_size(app_states.values())
        return cls(
            package=package,
            version=version,
            label=label or package.rsplit(".", 1)[-1].capitalize(),
            states=app_states,
            transitions=transitions,
            entry=entry,
            width=width,
            height=height,
            placed={sid: place_views(s) for sid, s in app_states.items()},
            acted={k: frozenset(v) for k, v in acted.items()},
        )

    def target(self, state_id: str, signature: str) -> str | None:
        """The recorded target of an action from a state, or None when none was recorded."""
        return self.transitions.get((state_id, signature))


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
