"""A plan under construction, which agent/compose.py builds once per candidate: its steps (each with the
confidence and target screen of the recorded transition behind it), the elements they acted on, the values
they typed, and the work the task asks on one screen (agent/screenwork.py: its options and fields, filled
top to bottom; a number on a keypad, key by key, rule `keypad`: a dialer takes digits by its keys). Each step
says why it is taken (RouteStep.why: route, target, value, confirm). The rules of what to do on the route and
at the target are agent/compose.py's."""
from __future__ import annotations

from appmem.agent.appgraph import AppGraph
from appmem.agent.screenwork import fields, label, options, stem_of
from appmem.agent.taskparse import ParsedTask, coverage
from appmem.formats.ui import ActionType
from appmem.graph.model import Element, RouteStep
from appmem.graph.routes import Edge
from appmem.planconfig import DEFAULT, PlannerConfig

GUESS = 0.5  # confidence of a step no recorded transition backs
OPTION_MIN_FIELD = 1.0  # a field on a screen the plan passes through is filled only when the task names it


class PlanSteps:
    """The steps of one candidate plan so far, and what they did (elements acted on, values typed)."""

    def __init__(self, graph: AppGraph, task: ParsedTask, config: PlannerConfig = DEFAULT):
        self.graph = graph
        self.task = task
        self.config = config
        self.steps: list[RouteStep] = []
        self.acted: set[str] = set()
        self.values: set[str] = set()
        self.reserved: set[str] = set()  # values that name an item: not typed into any field
        self.kept: set[str] = set()  # values entered without typing them (on a keypad)

    def _step(self, e: Element | None, action: ActionType, screen: str, text: str = "", *, to: str = "",
              confidence: float = GUESS, slot: str | None = None, stale: bool = False, why: str = "route",
              layer: str = "public") -> None:
        if e is not None:
            self.acted.add(e.id)
        risky = e is not None and e.id in self.graph.risky
        step = RouteStep(action, e, screen, text, risky, to or screen, round(confidence, 4), slot, stale, why=why,
                         layer=layer)
        if (owner := self.graph.screens.get(screen, {}).get("package", "")) and owner not in self.graph.packages:
            step.package = owner  # a step on another app's screen the route passes (a system dialog)
        self.steps.append(step)

    def _edge(self, e: Element) -> Edge | None:
        out = self.graph.routes.acting(e.screen_id, e.id)
        return max(out, key=lambda x: (x.reliability, x.successes)) if out else None

    def _act(self, e: Element, text: str = "", slot: str | None = None, why: str = "target") -> None:
        edge = self._edge(e)
        self._step(e, e.action, e.screen_id, text, to=edge.target if edge else e.screen_id,
                   confidence=edge.reliability if edge else GUESS, slot=slot, stale=bool(edge and edge.stale), why=why,
                   layer=edge.layer if edge else "public")

    def unused(self) -> list[str]:
        """The task's values not typed or selected yet (a file name typed without its extension counts as typed)."""
        return [v.text for v in self.task.values
                if v.text not in self.values and stem_of(v.text, self.config) not in self.values]

    def work(self, screen: str, leave_by: str = "", form: bool = True) -> int:
        """The task's options and fields on `screen` (not the element that leaves it); how many steps.
        A screen the plan only passes through (`form` False) gets only the fields the task names."""
        kinds = self.graph.screen_kinds(screen)  # its toggles and inputs: options and fields read no others
        keys = kinds.keys if self.config.keypad else {}
        if not kinds.toggles and not kinds.inputs and not keys:
            return 0
        before = len(self.steps)
        if keys and (number := self.keyed(keys)):  # a keypad takes a number key by key
            self.values.add(number)
            self.kept.add(number)
            for char in number:
                if char in keys:
                    self._act(keys[char], why="value")
        chosen: list[tuple[Element, str, str | None]] = [
            (e, "", None) for e in options(kinds.toggles, self.task, self.acted | {leave_by}, self.config)]
        for e, value, slot in fields(kinds.inputs, self.task, self.values, self.config):
            named = coverage(label(e), self.task.words) >= OPTION_MIN_FIELD
            if e.id != leave_by and value and (named or (form and value not in self.reserved)):
                self.values.add(value)
                chosen.append((e, value, slot))
        # top to bottom, as a person fills a form (a stable sort: without bounds, options before fields)
        for e, value, slot in sorted(chosen, key=lambda c: (c[0].bounds.top, c[0].bounds.left)):
            self._act(e, value, slot, why="value")
        return len(self.steps) - before

    def keyed(self, keys: dict[str, Element]) -> str | None:
        """The first of the task's numbers not entered yet that `keys` can enter (each digit, +, * or # a key;
        spacing and punctuation between digits are not keyed)."""
        return next((v.text for v in self.task.values if v.kind in ("number", "phone") and v.text in self.unused()
                     and all(c in keys for c in v.text if not (c.isspace() or c in "().-"))), None)

    def is_form(self, screen: str) -> bool:
        """A screen with a confirm button (dialog, form): its fields are the task's to fill."""
        return self.graph.screen_kinds(screen).form
