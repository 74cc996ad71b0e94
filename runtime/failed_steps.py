"""What one run learned about its failed steps, so that it does not go in circles.

A step is known by where it was taken, what, and on which element (`step_key`). The run
counts how often each failed, the detours it took, and the views (a list's rows: memory
keeps them as one element) that a step with an action already failed on from a screen,
so that the locator queue finds another view in their place.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from appmem.contract.requests import AVOID_MAX
from appmem.formats.ui import Bounds
from appmem.runtime.grounding import ground
from appmem.runtime.move import Move
from appmem.runtime.screen import LiveScreen

StepKey = tuple[str | None, str, str]


def step_key(here: LiveScreen, step: Move) -> StepKey:
    """A step as this run remembers it: where it was taken, what, on which element."""
    element = step.element or {}
    return here.screen_id, step.action, element.get("id") or element.get("label") or ""


def came_from(step: Move, here: LiveScreen) -> dict[str, str] | None:
    """A step the runtime took, as memory knows it: the screen it was planned on (else the one it was taken
    on), its action and element; None for a launch or on a screen memory could not place."""
    screen = step.screen_id or here.screen_id
    if not screen or step.action in ("start_app", "stop_app"):
        return None
    return {"screen_id": screen, "action": step.action, "element_id": (step.element or {}).get("id") or "",
            "detail": ""}


class FailedSteps:
    def __init__(self) -> None:
        self.failed: Counter[StepKey] = Counter()  # (screen, action, element) → failures, this run
        self.tried: set[StepKey] = set()  # detours taken in this run
        # (screen, action) → the views a step with this action failed on from that screen, in this run
        self.views: dict[tuple[str | None, str], list[list[int]]] = {}
        self.steps: dict[StepKey, dict[str, str]] = {}  # the failed steps as a plan request's `avoid` names them

    def fail(self, before: LiveScreen, step: Move, record: dict[str, Any]) -> None:
        """Count a failed step; the view it acted on (when it did) is not taken for it from there again."""
        key = step_key(before, step)
        self.failed[key] += 1
        # the edge memory planned: the plan's screen (the device's may be a look-alike of it) and element
        element_id, screen_id = (step.element or {}).get("id") or "", step.screen_id or before.screen_id
        if screen_id and (element_id or not step.element):
            self.steps[key] = {"screen_id": screen_id, "action": step.action, "element_id": element_id}
        if record["acted"]:
            self.views.setdefault((before.screen_id, step.action), []).append(record["element"]["bounds"])

    def avoided(self, tries: int) -> list[dict[str, str]]:
        """The steps that failed `tries` times in this run, as a plan request's `avoid` names them: memory's routes
        leave them out (one failure may be the app's hiccup, and the step the only way)."""
        return [s for key, s in self.steps.items() if self.failed[key] >= tries][-AVOID_MAX:]

    def avoid(self) -> set[StepKey]:
        """Steps not to take again as a detour: those that failed, and the detours taken."""
        return set(self.failed) | self.tried

    def find(self, element: dict[str, Any], action: str, here: LiveScreen) -> tuple[Bounds, str] | None:
        """The element on this screen through its locator queue, past the views `action` failed on here."""
        return ground(element, here.xml, self.views.get((here.screen_id, action), ()))

    def untried(self, step: Move, here: LiveScreen) -> bool:
        """The step's locator finds a view on this screen that the step did not already fail on in this run."""
        element, missed = step.element, self.views.get((here.screen_id, step.action), [])
        found = self.find(element, step.action, here) if element is not None and missed else None
        return found is not None and found[0].as_list() not in missed
