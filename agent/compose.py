"""One candidate plan: a route (and maybe a list item on the way) to a target, with the screen work around it.

`compose` walks the route; on each screen it passes it first does what the
task asks there (agent/screenwork.py: options, fields), then takes the hop.
A hop on the row the task names (an item anchor) becomes a slot step. At the
target screen the target is acted on; if it opens a dialog or form, that
screen's work follows, then its confirm button when the plan changed something
there and the memory does not show the change closing it (a radio row whose
recorded tap left the dialog needs no OK).

`score` rates a whole candidate: retrieval score of the target, plus COVER_W ×
the share of the task's words that the plan's labels and inputs say, minus
STEP_COST per step, plus REL_W × ln(product of the hops' reliabilities).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from agent.appgraph import AppGraph, Edge
from agent.screenwork import confirm, fields, is_confirm, item_template, label, options, role
from agent.taskparse import ParsedTask, content_stems, stem
from graph.model import ActionType, Element, PlanStep

COVER_W = 0.3
STEP_COST = 0.03
REL_W = 0.05
GUESS = 0.5  # confidence of a step no recorded transition backs


@dataclass
class Anchor:
    """A list row that shows an item the task names: select it (as a slot) to reach its detail screen."""

    row: Element
    value: str
    opens: str


@dataclass
class Candidate:
    target: Element
    retrieval: float
    steps: list[PlanStep]
    hops: list[Edge] = field(default_factory=list)
    score: float = 0.0


def _action(e: Element) -> ActionType:
    r = role(e)
    return ActionType.INPUT if r == "input" else ActionType.LONG_TAP if r == "long_tap" else ActionType.TAP


class Composer:
    def __init__(self, graph: AppGraph, task: ParsedTask):
        self.graph = graph
        self.task = task
        self.steps: list[PlanStep] = []
        self.acted: set[str] = set()
        self.values: set[str] = set()

    def _step(self, e: Element | None, action: ActionType, screen: str, text: str = "", *, to: str = "",
              confidence: float = GUESS, slot: str | None = None, stale: bool = False) -> None:
        if e is not None:
            self.acted.add(e.id)
        risky = e is not None and e.id in self.graph.risky
        self.steps.append(PlanStep(action, e, screen, text, risky, to or screen, round(confidence, 4), slot, stale))

    def _edge(self, e: Element) -> Edge | None:
        out = [x for x in self.graph.edges.get(e.screen_id, ()) if x.element_id == e.id]
        return max(out, key=lambda x: (x.reliability, x.successes)) if out else None

    def _act(self, e: Element, text: str = "", slot: str | None = None) -> None:
        edge = self._edge(e)
        self._step(e, _action(e), e.screen_id, text, to=edge.target if edge else e.screen_id,
                   confidence=edge.reliability if edge else GUESS, slot=slot, stale=bool(edge and edge.stale))

    def work(self, screen: str, leave_by: str = "") -> int:
        """The task's options and fields on `screen` (not the element that leaves it); how many steps."""
        elements = self.graph.screen_elements(screen)
        before = len(self.steps)
        for e in options(elements, self.task, self.acted | {leave_by}):
            self._act(e)
        for e, value, slot in fields(elements, self.task, self.values):
            if e.id != leave_by:
                self.values.add(value)
                self._act(e, value, slot)
        return len(self.steps) - before

    def hop(self, edge: Edge, anchor: Anchor | None = None) -> None:
        self.work(edge.source, edge.element_id)
        element = self.graph.elements.get(edge.element_id)
        text, slot = (edge.detail if edge.action != "input" else edge.input_template), None
        if anchor is not None and element is not None and element.id == anchor.row.id:
            element, text, slot = item_template(anchor.row, anchor.value), anchor.value, "item"
        elif edge.action == "input":
            text = next((v for v in (x.text for x in self.task.values) if v not in self.values), text)
        self._step(element, ActionType(edge.action), edge.source, text, to=edge.target,
                   confidence=edge.reliability, slot=slot, stale=edge.stale)

    def finish(self, target: Element) -> None:
        changed = self.work(target.screen_id, target.id)
        if target.id not in self.acted:
            value = ""
            if role(target) == "input":
                value = next((v.text for v in self.task.values if v.text not in self.values), "")
                self.values.add(value)
            self._act(target, value)
        if is_confirm(target):
            return
        opened = self.graph.opens(target)
        if opened and role(target) == "tap":
            screen, changed = opened, self.work(opened)
            # a bare confirmation ("Delete all events?" YES / NO) is confirmed as it is
            changed += not any(role(e) in ("toggle", "input") for e in self.graph.screen_elements(opened))
        else:
            screen, changed = target.screen_id, changed + (role(target) in ("toggle", "input"))
        closed = self.steps[-1].to_screen != screen
        ok = confirm(self.graph.screen_elements(screen), self.acted)
        if changed and ok is not None and not closed:
            self._act(ok)


def compose(graph: AppGraph, task: ParsedTask, target: Element, retrieval: float,
            segments: list[list[Edge]], anchor: Anchor | None = None) -> Candidate:
    """A plan along `segments` (one route, or route to the anchor's row + route from its detail screen)."""
    c = Composer(graph, task)
    hops: list[Edge] = []
    for k, segment in enumerate(segments):
        if k and anchor is not None:  # the row itself: a slot step between the two routes
            c.work(anchor.row.screen_id, anchor.row.id)
            c._step(item_template(anchor.row, anchor.value), _action(anchor.row), anchor.row.screen_id,
                    anchor.value, to=anchor.opens, confidence=GUESS, slot="item")
        for edge in segment:
            c.hop(edge, anchor)
        hops += segment
    c.finish(target)
    return Candidate(target, retrieval, c.steps, hops)


def score(candidate: Candidate, task: ParsedTask) -> float:
    words = {stem(w) for w in task.words}
    said = {s for step in candidate.steps for s in content_stems(
        " ".join((label(step.element) if step.element else "", step.element.text if step.element else "",
                  step.input)))}
    cover = len(words & said) / len(words) if words else 0.0
    reliable = sum(math.log(h.reliability) for h in candidate.hops)
    return candidate.retrieval + COVER_W * cover - STEP_COST * len(candidate.steps) + REL_W * reliable
