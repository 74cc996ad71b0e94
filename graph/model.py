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


@dataclass
class Element:
    """An interactive view of a Screen, keyed within it by its structural path."""

    id: str
    screen_id: str
    key: str
    class_name: str
    resource_id: str
    text: str
    content_desc: str
    bounds: Bounds
    flags: list[str]
    locators: list[str]  # XPath queries, most precise first (AutoDroid-V2's queue)

    @property
    def label(self) -> str:
        return self.text or self.content_desc or self.resource_id.rsplit("/", 1)[-1]


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


@dataclass
class Step:
    """One action in a trace, from one concrete state to the next."""

    index: int
    source_state: str
    action: Action
    target_state: str
    ok: bool = True
    at: str = ""


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

    def observe(self, ok: bool, at: str) -> None:
        self.observations += 1
        if ok:
            self.successes += 1
        else:
            self.failures += 1
        self.first_seen = min(self.first_seen, at)
        self.last_seen = max(self.last_seen, at)


@dataclass
class PlanStep:
    action: ActionType
    element: Element | None
    screen_id: str
    input: str = ""
    risky: bool = False
    package: str = ""  # the app the step acts in (plans may switch apps)
    slot: str | None = None  # "item" | "value": a recalled step adapted to the task's parameter
    to_screen: str = ""


@dataclass
class Plan:
    task: str
    package: str
    steps: list[PlanStep]
    llm_calls: int = 0
    source: str = "memory"  # memory | recall | none
    recalled: dict | None = None  # the stored task a recall answered with: provenance, score, parameters
    replanned_from: int | None = None  # recall: the step from which the planner took over (an element gone)
