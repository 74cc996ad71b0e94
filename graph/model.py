"""The domain model of app memory, defined once and used by every package.

A device shows a *UI state* (a tree of `View`s). Its content-free structure
gives a `Screen` (the abstract screen of one app version); its interactive views
are `Element`s of that screen. An `Action` on an element moves the device to
another state: a `Step` of a `Trace`. Importers (`ingest/`) and the explorer
(`workers/`) produce Traces; the graph store turns them into `Transition`s.
`Task`s are demonstrations; `Plan`s are what the planner answers.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from enum import Enum

from graph.vocabulary import label_of, role_of


def stable_id(*parts: object) -> str:
    """Deterministic id from parts: the same inputs always give the same id,
    which is what makes every write idempotent."""
    h = hashlib.sha1("\x1f".join("" if p is None else str(p) for p in parts).encode("utf-8"))
    return h.hexdigest()[:24]


class ActionType(str, Enum):
    TAP = "tap"
    LONG_TAP = "long_tap"
    INPUT = "input"
    SCROLL = "scroll"
    BACK = "back"
    HOME = "home"
    ENTER = "enter"
    START_APP = "start_app"
    STOP_APP = "stop_app"

    @property
    def needs_element(self) -> bool:
        return self in (ActionType.TAP, ActionType.LONG_TAP, ActionType.INPUT, ActionType.SCROLL)


@dataclass(frozen=True)
class Bounds:
    left: int
    top: int
    right: int
    bottom: int

    @property
    def center(self) -> tuple[int, int]:
        return ((self.left + self.right) // 2, (self.top + self.bottom) // 2)

    def contains(self, x: int, y: int) -> bool:
        return self.left <= x < self.right and self.top <= y < self.bottom

    @property
    def area(self) -> int:
        return max(0, self.right - self.left) * max(0, self.bottom - self.top)

    def as_list(self) -> list[int]:
        return [self.left, self.top, self.right, self.bottom]


@dataclass
class View:
    """One node of a UI hierarchy as a device reports it (uiautomator / DroidBot)."""

    index: int
    parent: int  # -1 for the root
    children: list[int]
    class_name: str
    package: str = ""
    resource_id: str = ""
    text: str = ""
    content_desc: str = ""
    bounds: Bounds = Bounds(0, 0, 0, 0)
    visible: bool = True
    enabled: bool = True
    clickable: bool = False
    long_clickable: bool = False
    checkable: bool = False
    checked: bool = False
    scrollable: bool = False
    editable: bool = False
    focusable: bool = False
    focused: bool = False
    selected: bool = False
    password: bool = False

    @property
    def interactive(self) -> bool:
        return self.visible and self.enabled and (
            self.clickable or self.long_clickable or self.checkable or self.scrollable or self.editable
        )

    @property
    def short_class(self) -> str:
        return self.class_name.rsplit(".", 1)[-1]

    def flags(self) -> list[str]:
        names = ("clickable", "long_clickable", "checkable", "checked", "scrollable", "editable",
                 "enabled", "focused", "selected", "password")
        return [n for n in names if getattr(self, n)]


@dataclass
class UIState:
    """A concrete observation of a device screen: DroidBot's state."""

    package: str
    activity: str
    views: list[View]
    width: int = 1080
    height: int = 1920
    state_id: str = ""  # the concrete-state key (DroidBot's state_str or ours)
    observed_at: str = ""
    # Formats without resource ids (AutoDroid's HTML) give their own content-free
    # structure string; when set, it replaces the (class, resource id) set in the signature.
    structure: str = ""

    @property
    def crashed(self) -> bool:
        """Android's crash or ANR dialog is on screen (its framework ids `android:id/aerr_*`)."""
        return any(v.resource_id.startswith("android:id/aerr_") for v in self.views if v.visible)


@dataclass
class Element:
    """An interactive view of a Screen, keyed within it by its structural path.
    The one element model: ingest writes it, the summarizer and the planner read it.
    Its label and role come from graph/vocabulary.py."""

    id: str
    screen_id: str
    key: str = ""
    class_name: str = ""
    resource_id: str = ""
    text: str = ""
    content_desc: str = ""
    bounds: Bounds = Bounds(0, 0, 0, 0)
    flags: list[str] = field(default_factory=list)
    locators: list[str] = field(default_factory=list)  # XPath queries, most precise first (AutoDroid-V2's queue)

    @property
    def label(self) -> str:
        return label_of(self)

    @property
    def role(self) -> str:
        """input | toggle | scroll | long_tap | tap."""
        return role_of(self)

    @property
    def action(self) -> ActionType:
        """What acting on the element as a target means: typing into an input,
        long-pressing what only long-clicks, else a tap (toggles and rows too)."""
        return {"input": ActionType.INPUT, "long_tap": ActionType.LONG_TAP}.get(self.role, ActionType.TAP)


@dataclass
class Screen:
    """An abstract screen of one app version, keyed by its content-free signature."""

    id: str
    package: str
    app_version: str
    activity: str
    signature: str
    title: str = ""


@dataclass
class Action:
    type: ActionType
    element_key: str = ""  # Element.key on the source screen, "" for element-free actions
    text: str = ""  # typed text (input), direction (scroll), package (start_app)

    @property
    def detail(self) -> str:
        """The part of `text` that tells actions apart: scroll direction, started or stopped
        package (typed text does not: the same field typed into is the same action)."""
        return self.text if self.type in (ActionType.SCROLL, ActionType.START_APP, ActionType.STOP_APP) else ""

    @property
    def signature(self) -> str:
        """What identifies the action on a screen, regardless of typed content."""
        return f"{self.type.value}|{self.element_key}|{self.detail}"


class Outcome(str, Enum):
    """What an action achieved. Anything but OK is a failure of the edge it was expected to take."""

    OK = "ok"
    NO_EFFECT = "no_effect"  # nothing changed where the memory expected a move
    CRASH = "crash"  # the app crashed or stopped responding (Android's crash/ANR dialog)
    MISSED = "missed"  # a runtime step reached another screen than the plan expected


@dataclass
class Step:
    """One action in a trace, from one concrete state to the next. `expected_screen` (a
    Screen id) is where the memory said the action leads, when the step did not get there:
    its failure is counted on that edge, not on the one the device took."""

    index: int
    source_state: str
    action: Action
    target_state: str
    outcome: Outcome = Outcome.OK
    at: str = ""
    expected_screen: str = ""

    @property
    def ok(self) -> bool:
        return self.outcome is Outcome.OK


@dataclass
class Trace:
    """Provenance of a run (exploration, import, agent run) and what it observed."""

    id: str
    source: str  # droidbot | autodroid | explorer | agent
    package: str
    app_version: str
    device: str
    explorer: str
    started: str
    ended: str
    states: dict[str, UIState] = field(default_factory=dict)
    steps: list[Step] = field(default_factory=list)
    version_code: int | None = None  # the device-reported versionCode, when known (orders versions)
    contributor: str = ""  # the API key id of a contribution; "" for a crawl, an import or one's own run


@dataclass
class TaskStep:
    state_id: str
    action: Action


@dataclass
class Task:
    """A demonstration: a task description and the ordered steps that do it."""

    id: str
    description: str
    package: str
    source: str
    steps: list[TaskStep]


@dataclass
class Transition:
    """A UTG edge as stored: from screen to screen by an action on an element."""

    source_screen: str
    target_screen: str
    action: Action
    element_id: str
    observations: int = 0
    successes: int = 0
    failures: int = 0
    first_seen: str = ""
    last_seen: str = ""
    devices: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        return stable_id("transition", self.source_screen, self.action.signature, self.target_screen)

    @property
    def reliability(self) -> float:
        return reliability(self.successes, self.failures)

    def observe(self, ok: bool, at: str) -> None:
        """One attempt of the edge (times are canonical UTC strings: graph/times.py)."""
        self.observations += 1
        if ok:
            self.successes += 1
        else:
            self.failures += 1
        self.first_seen = min(self.first_seen, at) if self.first_seen else at
        self.last_seen = max(self.last_seen, at)


def reliability(successes: int, failures: int) -> float:
    """How likely an edge works: the Laplace estimate (s + 1) / (s + f + 2), so an edge
    never tried is 0.5 and one observation moves it only part of the way."""
    return (successes + 1) / (successes + failures + 2)


@dataclass
class PlanStep:
    action: ActionType
    element: Element | None
    screen_id: str
    input: str = ""
    risky: bool = False
    to_screen: str = ""  # the screen expected after the step ("" when unknown)
    confidence: float = 1.0  # how likely the step works: the edge's reliability, lower for guesses
    slot: str | None = None  # "item": select the row showing `input`; "value": a field filled from the task
    stale: bool = False  # the edge was not re-observed in the app's newest explored version
    package: str = ""  # the app the step acts in (plans may switch apps)


@dataclass
class Plan:
    task: str
    package: str
    steps: list[PlanStep]
    llm_calls: int = 0
    source: str = "memory"  # memory | recall | none
    route: str = "found"  # found | none: no route from the start screen to any target
    start: dict | None = None  # {"screen_id", "match", "score"}
    alternatives: list[dict] = field(default_factory=list)  # other targets: {"screen_id", "label", "score"}
    recalled: dict | None = None  # the stored task a recall answered with: provenance, score, parameters
    replanned_from: int | None = None  # recall: the step from which the planner took over (an element gone)
