"""Shortcut plans: a task and a start screen → executable steps over the app memory.

The planner retrieves the elements that best match the task by meaning
(`semantic.ranking.search_elements`), finds the UTG paths from the start
screen (the agent's current screen, or where recorded runs entered the app)
to each candidate's screen, and picks the candidate with the best score:
retrieval score minus a small cost per hop. Among equally short paths it takes
the one whose transitions most reliably worked (successes / observations),
ranked here in code because Neo4j and ArcadeDB filter paths differently.
Each step carries the element's locators (most precise first) and a `risky`
flag, so an agent can ask for confirmation before deleting, sending or paying.
No LLM is called: `llm_calls` is 0.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from appmem.errors import AppmemError
from graph.model import ActionType, Element, Plan, PlanStep
from graph.store import GraphStore, element_of
from graph.vocabulary import CONFIRM_WORDS
from semantic.embedder import Embedder
from semantic.ranking import search_elements
from semantic.vectors import Hit, VectorStore

# A hop must buy more than this much retrieval score to be worth taking.
HOP_COST = 0.03
CANDIDATES = 5
ENTRY_SCREENS = 3
QUOTED = re.compile(r"""["“'‘]([^"”'’]{1,200})["”'’]""")
NAMED = re.compile(r"\b(?:named|called|titled|saying|with (?:the )?(?:name|title|text|content|label))\s+(.+?)\s*(?:[,.;]|$| and | then )",
                   re.I)


class PlanningError(AppmemError):
    """No plan can be made: nothing in memory for the app, or an unknown start screen."""


def task_input(task: str) -> str:
    """The text a task asks to type, if it states one: quoted, or after 'named' / 'called' / 'titled'."""
    if m := QUOTED.search(task):
        return m.group(1)
    if m := NAMED.search(task):
        return m.group(1).strip()
    return ""


def reliability(hops: list[dict[str, Any]]) -> float:
    """How likely a path's transitions work again: product of (successes + 1) / (observations + 2)."""
    out = 1.0
    for hop in hops:
        out *= ((hop.get("successes") or 0) + 1) / ((hop.get("observations") or 0) + 2)
    return out


@dataclass
class Route:
    hit: Hit
    start: str
    hops: list[dict[str, Any]]

    @property
    def score(self) -> float:
        return self.hit.score - HOP_COST * len(self.hops)


class Planner:
    """Plans over an injected graph store, vector store and embedder."""

    def __init__(self, store: GraphStore, vectors: VectorStore, embedder: Embedder):
        self.store = store
        self.vectors = vectors
        self.embedder = embedder

    def plan(self, task: str, packages: list[str], start_screen: str | None = None) -> Plan:
        if not task.strip():
            raise PlanningError("the task is empty")
        hits = search_elements(self.vectors, self.embedder.embed([task])[0], task, CANDIDATES, packages)
        if not hits:
            raise PlanningError(f"no element memory for {', '.join(packages)}: run `appmem summarize` first")
        starts = self._starts(packages, start_screen)
        routes = [route for hit in hits if (route := self._route(hit, starts)) is not None]
        best = max(routes, key=lambda r: r.score) if routes else Route(hits[0], start_screen or "", [])
        return self._steps(task, packages, best)

    def _starts(self, packages: list[str], start_screen: str | None) -> list[str]:
        if start_screen:
            if not self.store.read("planner_screen", screen_id=start_screen):
                raise PlanningError(f"unknown start screen {start_screen!r}")
            return [start_screen]
        rows = self.store.read("planner_entry_screens", packages=packages)
        return [r["screen_id"] for r in rows[:ENTRY_SCREENS]]

    def _route(self, hit: Hit, starts: list[str]) -> Route | None:
        target = hit.payload.get("screen_id")
        for start in starts:
            if start == target:
                return Route(hit, start, [])
            paths = [row["hops"] for row in self.store.read("planner_paths", source_id=start, target_id=target)]
            if paths:
                return Route(hit, start, max(paths, key=reliability))
        return None

    def _screen_elements(self, screen_id: str) -> list[tuple[Element, bool]]:
        return [(element_of(r), r["risky"]) for r in self.store.elements(screen_ids=[screen_id])]

    def _finish(self, target: Element, value: str) -> list[PlanStep]:
        """An action is done when its dialog is: a target that opens a dialog with a
        confirm button (Delete all events → YES) gets the dialog's input and confirm;
        a target inside such a dialog (an option) gets the confirm."""
        if is_confirm(target):
            return []
        opened = self.store.read("planner_opens", screen_id=target.screen_id, element_id=target.id)
        if opened:
            return _finish_dialog(self._screen_elements(opened[0]["screen_id"]), value, None)
        return _finish_dialog(self._screen_elements(target.screen_id), value, target)

    def _steps(self, task: str, packages: list[str], route: Route) -> Plan:
        target_id = route.hit.payload["element_id"]
        ids = sorted({h["element_id"] for h in route.hops if h.get("element_id")} | {target_id})
        rows = self.store.elements(ids=ids)
        elements = {r["id"]: (element_of(r), r["risky"]) for r in rows}
        value = task_input(task)
        steps: list[PlanStep] = []
        screen = route.start
        for hop in route.hops:
            element, risky = elements.get(hop.get("element_id") or "", (None, False))
            action = ActionType(hop["action"])
            if action is ActionType.INPUT:
                text = value or hop.get("input_template") or ""
            else:
                text = hop.get("detail") or ""
            steps.append(PlanStep(action, element, screen, text, risky))
            screen = hop["target"]
        if target_id not in elements:
            raise PlanningError(f"element {target_id} is in the vectors but not in the graph: rerun `appmem summarize`")
        element, risky = elements[target_id]
        action = element.action
        if is_confirm(element) and value:  # a form's Save: fill its field with the task's value first
            steps.extend(_fill(self._screen_elements(element.screen_id), value))
        steps.append(PlanStep(action, element, element.screen_id, value if action is ActionType.INPUT else "", risky))
        steps.extend(self._finish(element, value))
        return Plan(task=task, package=packages[0] if len(packages) == 1 else ",".join(packages), steps=steps)


def is_confirm(element: Element) -> bool:
    return element.label.strip().lower() in CONFIRM_WORDS


def _fill(screen_elements: list[tuple[Element, bool]], value: str) -> list[PlanStep]:
    """Typing the task's value into the screen's first text field, if it has one."""
    return [PlanStep(ActionType.INPUT, e, e.screen_id, value, r)
            for e, r in screen_elements if value and "editable" in e.flags][:1]


def _finish_dialog(screen_elements: list[tuple[Element, bool]], value: str,
                   skip: Element | None) -> list[PlanStep]:
    """Steps that complete a dialog: type the task's value into its field, then confirm."""
    confirm = next(((e, r) for e, r in screen_elements if is_confirm(e) and e is not skip), None)
    if confirm is None:
        return []
    return _fill(screen_elements, value) + [PlanStep(ActionType.TAP, confirm[0], confirm[0].screen_id, "", confirm[1])]


def plan_to_dict(plan: Plan) -> dict[str, Any]:
    """The plan as JSON for agents (and `../shared/eval/droidtask_score.py`)."""
    def element(e: Element | None) -> dict[str, Any] | None:
        if e is None:
            return None
        return {"id": e.id, "text": e.text, "content_desc": e.content_desc, "label": e.label,
                "class_name": e.class_name, "resource_id": e.resource_id, "bounds": e.bounds.as_list(),
                "locators": e.locators}

    out = {"task": plan.task, "package": plan.package, "source": plan.source, "llm_calls": plan.llm_calls,
           "steps": [{"action": s.action.value, "package": s.package, "screen_id": s.screen_id,
                      "element": element(s.element), "input": s.input, "slot": s.slot, "to_screen": s.to_screen,
                      "risky": s.risky} for s in plan.steps]}
    if plan.recalled is not None:  # recall (agent/recall.py): which stored task, and from where it was re-planned
        out.update(recalled=plan.recalled, replanned_from=plan.replanned_from)
    return out
