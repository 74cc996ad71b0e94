"""The domain model of app memory, defined once and used by every package.

A device shows a *UI state* (a tree of `View`s; they and the `Action`s done on them are
in formats/ui.py). Its content-free structure gives a `Screen` (the abstract screen of
one app version); its interactive views are `Element`s of that screen. An `Action`
on an element moves the device to another state: a `Step` of a `Trace`. Importers (`ingest/`) and the explorer
(`workers/`) produce Traces; the graph store turns them into `Transition`s.
`Task`s are demonstrations; `RoutePlan`s are what the planner answers (agents read them as `contract.Plan`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from appmem.formats.ui import Action, ActionType, Bounds, UIState, stable_id
from appmem.graph.vocabulary import label_of, role_of


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
class LocatedScreen:
    """A remembered screen a step was seen on only in pixels (a screenshot located among the app's screens),
    with the remembered elements the run acted on there, by key: the step refers to memory's own screen and
    elements, and writes neither (a screenshot shows no structure to store)."""

    screen: Screen
    elements: dict[str, Element] = field(default_factory=dict)


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
    weight: float = 1.0  # a contribution's voice on the edges it counts (graph/votes.py: a correction weighs more)
    # the steps in the order they happened, when `steps` are not (a DroidBot UTG lists each distinct event once):
    # what graph/follows.py counts order-2 outcomes over
    history: list[Step] = field(default_factory=list)
    # the states of steps seen in screenshots, by state id ("pixels:" + the screen's id): not in `states`
    located: dict[str, LocatedScreen] = field(default_factory=dict)


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


def reliability(successes: float, failures: float) -> float:
    """How likely an edge works: the Laplace estimate (s + 1) / (s + f + 2), so an edge
    never tried is 0.5 and one observation moves it only part of the way."""
    return (successes + 1) / (successes + failures + 2)


@dataclass
class RouteStep:
    """A step of a route the planner composed over memory's model (its element an `Element`); agents read it as
    a `contract.PlanStep` (agent/planjson.py)."""
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
    to_package: str = ""  # the app of `to_screen` when memory knows it: a step may leave the app (home, a share)
    why: str = ""  # route | target | value | confirm: a move toward the target, the target, a value the task names, a needed confirm
    layer: str = "public"  # whose edge backs it: the shared memory's, or the reading tenant's own ("tenant")




@dataclass
class RoutePlan:
    """The planner's plan over memory's model; agents read it as a `contract.Plan` (agent/planjson.py)."""
    task: str
    package: str
    steps: list[RouteStep]
    llm_calls: int = 0
    source: str = "memory"  # memory | recall | none
    route: str = "found"  # found | none: no route from the start screen to any target
    start: dict | None = None  # {"screen_id", "match", "score"}
    alternatives: list[dict] = field(default_factory=list)  # other targets: {"screen_id", "label", "score"}
    recalled: dict | None = None  # the stored task a recall answered with: provenance, score, parameters
    replanned_from: int | None = None  # recall: the step from which the planner took over (an element gone)
