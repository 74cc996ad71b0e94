"""The agent runtime: execute a plan on a device, check each step, re-plan on deviation, report back.

    plan (from an API server or the local memory) → for each step:
      confirm it if risky → dump the screen → re-ground its element through the
      locator queue (runtime/grounding.py; a slot's row is scrolled to) → act →
      dump again → locate → the expected screen? next step : re-plan from here.

A deviation (another remembered screen than expected, or the element gone) is
recorded with its outcome and the memory is asked again from where the device
is (at most `max_replans` times). With no route in memory the runtime asks an
LLM step by step (with appmem's hints) when one is configured, else it stops
and says why. Every step, failures included, goes into a run trace
(`contract.RunTrace`) that is contributed back.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Callable

from runtime.grounding import find_text, ground, node_at, scrollable
from appmem.errors import AppmemError, DeviceError
from formats.ui import Action, ActionType, Bounds
from graph.rows import now_iso
from device.driver import DeviceDriver

log = logging.getLogger(__name__)

SLOT_SCROLLS = 4


@dataclass
class LiveScreen:
    """The device's screen as the runtime just observed it, located in memory (graph.model.Screen is the stored one)."""

    package: str
    activity: str
    xml: str
    located: dict[str, Any] = field(default_factory=dict)

    @property
    def screen_id(self) -> str | None:
        return self.located.get("screen_id")


@dataclass
class Runtime:
    """`memory` answers `plan(...)`, `locate(...)` and `hints(...)` with `contract` models: a
    `contract.client.ApiClient` or the local `agent.service.Service`."""

    driver: DeviceDriver
    memory: Any
    confirm: Callable[[dict[str, Any]], bool]
    max_steps: int = 30
    max_replans: int = 4
    llm_step: Callable[[str, LiveScreen, list[dict]], dict[str, Any] | None] | None = None
    progress: Callable[[dict[str, Any]], None] | None = None
    steps: list[dict[str, Any]] = field(default_factory=list)  # run trace steps (§3)

    def screen(self, package: str) -> LiveScreen:
        """The device's screen, located in memory: the task's app, or another that a cross-app step
        went to (a file picker, the dialer, a settings page) when memory holds its screens."""
        fg_package, activity, xml = self.driver.dump()
        try:
            located = self.memory.locate(fg_package, xml, None, activity).model_dump()
        except AppmemError as exc:
            if fg_package == package or not 400 <= getattr(exc, "status", 400) < 500:
                raise  # the task's own app, or the server is unreachable: not "a screen memory lacks"
            located = {}
        return LiveScreen(fg_package, activity, xml, located)

    def run(self, task: str, app: str | None) -> dict[str, Any]:
        started, replans = now_iso(), 0
        fg_package, activity, xml = self.driver.dump()
        plan = self.memory.plan(task, app, screen_xml=xml, activity=activity).model_dump()
        package = plan["package"]
        version = self._version(package)
        here = self.screen(package)
        status, reason, cursor = "done", "", 0
        while True:
            steps = plan.get("steps") or []
            if steps and cursor >= len(steps):
                break
            # The package the next step acts in: the app's own, or another app a cross-app step went to.
            where = (steps[cursor].get("package") or package) if steps else package
            if here.package != where and len(self.steps) < self.max_steps:
                # the app is not in front (at the start, or a step left it): launch it, plan from its screen
                here = self._act({"action": "start_app", "element": None, "input": package}, here, package, None)
                plan, cursor = self._replan(task, package, here), 0
                steps = plan.get("steps") or []
            if plan.get("route") == "none" or not steps:
                status, reason, here = self._without_route(task, package, here)
                break
            if len(self.steps) >= self.max_steps:
                status, reason = "failed", f"stopped after --max-steps {self.max_steps}"
                break
            step = steps[cursor]
            if step.get("risky") and not self.confirm(step):
                status, reason = "stopped", f"risky step {cursor + 1} ({_label(step)}) was not confirmed"
                break
            expected = step.get("to_screen") or (steps[cursor + 1]["screen_id"] if cursor + 1 < len(steps) else None)
            here = self._act(step, here, package, expected)
            if self.steps[-1]["outcome"] == "ok":
                cursor += 1
                continue
            replans += 1
            if replans > self.max_replans:
                status, reason = "failed", f"gave up after {self.max_replans} re-plans: {self.steps[-1]['why']}"
                break
            plan, cursor = self._replan(task, package, here), 0
        run = {"format": "appmem-run/1", "task": task, "package": package, "app_version": version,
               "device": self.driver.name, "started": started, "ended": now_iso(), "status": status,
               "steps": [{k: v for k, v in s.items() if k != "why"} for s in self.steps]}
        return {"status": status, "reason": reason, "replans": replans, "package": package,
                "steps": [{"index": s["index"], "action": s["action"], "label": (s["element"] or {}).get("text")
                           or (s["element"] or {}).get("content_desc") or s["input"], "outcome": s["outcome"],
                           "expected_screen": s["expected_screen"], "reached_screen": s["reached_screen"],
                           **({"why": s["why"]} if s["why"] else {})} for s in self.steps],
                "run": run}

    def _version(self, package: str) -> str:
        try:
            return self.driver.app_version(package)[0]  # (versionName, versionCode)
        except DeviceError:
            return "unknown"

    def _replan(self, task: str, package: str, here: LiveScreen) -> dict[str, Any]:
        if here.package != package:
            return self.memory.plan(task, package).model_dump()
        return self.memory.plan(task, package, screen_xml=here.xml, activity=here.activity).model_dump()

    def _target(self, step: dict[str, Any], here: LiveScreen) -> tuple[Bounds | None, str]:
        """The element's bounds on the current screen (locator queue, then a slot's row by scrolling)."""
        element = step.get("element")
        if element is None:
            return None, ""
        found = ground(element, here.xml)
        if found:
            return found[0], ""
        text = step.get("input") if step.get("slot") == "item" else (element.get("text") or "")
        for _ in range(SLOT_SCROLLS if text else 0):
            if (row := find_text(here.xml, text)) is not None:
                return row, ""
            area = scrollable(here.xml)
            if area is None:
                break
            self.driver.perform(Action(ActionType.SCROLL, text="DOWN"), area)
            here.package, here.activity, here.xml = self.driver.dump()
        return None, f"element {_label(step)!r} is not on the screen"

    def _act(self, step: dict[str, Any], here: LiveScreen, package: str, expected: str | None) -> LiveScreen:
        kind = ActionType(step["action"])
        bounds, why = self._target(step, here)
        element = step.get("element")
        record = {"index": len(self.steps), "action": kind.value, "input": step.get("input") or "",
                  "element": _element(element, bounds, here.xml), "before_xml": here.xml, "before_activity": here.activity,
                  "expected_screen": expected}
        if kind.needs_element and bounds is None:
            after, outcome = here, "missed"
            why = why or f"{kind.value} needs an element"
        else:
            text = step.get("input") or (step.get("detail") or "")
            self.driver.perform(Action(kind, text=text or ("DOWN" if kind is ActionType.SCROLL else "")), bounds)
            after = self.screen(package)
            outcome = self._outcome(here, after, package, expected)
            why = "" if outcome == "ok" else f"expected screen {expected}, reached {after.screen_id or after.package}"
        self.steps.append({**record, "after_xml": after.xml, "after_activity": after.activity,
                           "reached_screen": after.screen_id, "outcome": outcome, "why": why})
        if self.progress:
            self.progress(self.steps[-1])
        return after

    @staticmethod
    def _outcome(before: LiveScreen, after: LiveScreen, package: str, expected: str | None) -> str:
        if expected is None or after.screen_id == expected:
            return "ok"
        if after.package != package and before.package == package:
            return "crash"  # the app left the foreground when a screen of it was expected
        if after.screen_id is None:  # a screen memory has not seen: judge by the next step's grounding
            return "ok"
        return "no_effect" if after.xml == before.xml else "missed"

    def _without_route(self, task: str, package: str, here: LiveScreen) -> tuple[str, str, LiveScreen]:
        if self.llm_step is None:
            return "stopped", ("memory has no route for this task from this screen, and no LLM is configured "
                               "(APPMEM_LLM_BASE_URL / APPMEM_LLM_MODEL) to go on step by step"), here
        for _ in range(self.max_steps - len(self.steps)):
            hints = self.memory.hints(task, package, here.xml, None, here.activity).model_dump()["hints"] \
                if here.package == package else []
            step = self.llm_step(task, here, hints)
            if step is None:
                return "done", "the LLM judged the task done", here
            if step.get("risky") and not self.confirm(step):
                return "stopped", "a risky step proposed by the LLM was not confirmed", here
            here = self._act(step, here, package, None)
        return "failed", f"stopped after --max-steps {self.max_steps}", here


def _label(step: dict[str, Any]) -> str:
    element = step.get("element") or {}
    return element.get("label") or element.get("text") or element.get("content_desc") or step.get("action", "")


def _element(element: dict[str, Any] | None, bounds: Bounds | None, xml: str) -> dict[str, Any] | None:
    """The element as the trace records it: the dumped view acted on, else what the plan remembered."""
    if element is None:
        return None
    if bounds is not None and (seen := node_at(xml, bounds)):
        return seen
    return {"text": element.get("text") or "", "content_desc": element.get("content_desc") or "",
            "resource_id": element.get("resource_id") or "", "class_name": element.get("class_name") or "",
            "bounds": (bounds.as_list() if bounds else element.get("bounds")) or [0, 0, 0, 0]}


def describe(result: dict[str, Any]) -> str:
    lines = [f"{result['status']}: {len(result['steps'])} steps, {result['replans']} re-plans"
             + (f" ({result['reason']})" if result["reason"] else "")]
    lines += [f"  {s['index'] + 1}. {s['action']} {s['label'] or ''} → {s['outcome']}" for s in result["steps"]]
    if result.get("trace_id"):
        lines.append(f"trace: {result['trace_id']}")
    return "\n".join(lines)
