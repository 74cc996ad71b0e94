"""The agent runtime: execute a plan on a device, check each step, re-plan on deviation, report back.

    plan (from an API server or the local memory) → for each step:
      confirm it if risky → dump the screen → re-ground its element through the
      locator queue (runtime/grounding.py; a slot's row is scrolled to) → act →
      dump again → locate → the expected screen? next step : re-plan from here.

A deviation (another remembered screen than expected, or the element gone) is
recorded with its outcome and the memory is asked again from where the device
is (at most `max_replans` times). A step that already failed from this screen in
this run is not taken again while there is another way: the runtime takes the
best other element memory's hints give for this screen (or BACK), then asks again,
so two look-alike screens cannot keep it going in circles; each such detour
counts as a re-plan. A window another package draws over the app (the
notification shade, a system dialog: the dump's nodes are not the focused app's)
is dismissed with BACK before planning from it. Memory splits look-alike screens by content and keeps
a list's rows as one element: a step that lands on another screen than expected, on which the plan's
next element is shown, goes on with the plan; a step whose view (a row) led elsewhere is backed out of
with BACK and taken again on another view its locator finds (each counts as a re-plan). The plan's last step is its target: once it is
taken on its element and the app reacts, the run is done even when the app shows another screen
than memory expected (an app that is not deterministic: a dialog's CANCEL returns to whatever
was under it, a link opens a page still loading); not after a crash. With no route in memory the runtime asks an
LLM step by step (with appmem's hints) when one is configured, else it stops
and says why. Every step, failures included, goes into a run trace
(`contract.RunTrace`) that is contributed back.
"""
from __future__ import annotations

import logging
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

from contract.backend import MemoryBackend
from runtime.stepwise import LlmReplyError
from runtime.grounding import drawn_package, find_text, ground, node_at, scrollable
from appmem.errors import AppmemError, DeviceError, NotFound
from formats.ui import Action, ActionType, Bounds
from formats.uixml import parse_hierarchy
from graph.rows import now_iso
from graph.vocabulary import is_risky
from contract.run import RunElement, RunStep, RunTrace
from device.driver import DeviceDriver

log = logging.getLogger(__name__)

SLOT_SCROLLS = 4
PACKAGE = re.compile(r"[A-Za-z0-9_.]+")
LLM_RETRIES = 2  # invalid LLM replies in a row before the run fails
OVERLAY_BACKS = 2  # BACK presses that may dismiss a window drawn over the app before the run goes on without
DETOUR_ACTIONS = ("tap", "long_tap")  # a detour takes an element that needs no input
STEP_TRIES = 2  # a step may fail this often from one screen (once more when there is no way round it)


@dataclass
class LiveScreen:
    """The device's screen as the runtime just observed it, located in memory (graph.model.Screen is the stored one)."""

    package: str
    activity: str
    xml: str
    located: dict[str, Any] = field(default_factory=dict)
    drawn: str = ""  # the package of the window the dump shows on top (its nodes'), "" when they name none

    @property
    def screen_id(self) -> str | None:
        return self.located.get("screen_id")

    def overlaid(self, package: str) -> bool:
        """The app is focused but another package's window is drawn over it (the shade, a system dialog)."""
        return self.package == package and bool(self.drawn) and self.drawn != package


@dataclass
class Runtime:
    """`memory` answers `plan(...)`, `locate(...)` and `hints(...)` with `contract` models: a
    `contract.client.ApiClient` or the local `agent.service.Service`."""

    driver: DeviceDriver
    memory: MemoryBackend
    confirm: Callable[[dict[str, Any]], bool]
    max_steps: int = 30
    max_replans: int = 4
    llm_step: Callable[[str, LiveScreen, list[dict]], dict[str, Any] | None] | None = None
    progress: Callable[[dict[str, Any]], None] | None = None
    steps: list[dict[str, Any]] = field(default_factory=list)  # run trace steps (§3)
    llm_failures: list[dict[str, Any]] = field(default_factory=list)  # invalid LLM replies: no device action

    def screen(self, package: str) -> LiveScreen:
        """The device's screen, located in memory: the task's app, or another that a cross-app step
        went to (a file picker, the dialer, a settings page) when memory holds its screens."""
        fg_package, activity, xml = self.driver.dump()
        try:
            located = self.memory.locate(fg_package, xml, None, activity).model_dump()
        except AppmemError as exc:
            status = getattr(exc, "status", 404 if isinstance(exc, NotFound) else 400)
            if not 400 <= status < 500 or (fg_package == package and status != 404):
                raise  # the server is unreachable, or the app's own dump is bad: not "a screen memory lacks"
            located = {}  # memory holds no screen of the dump's package (a system overlay, another app)
        return LiveScreen(fg_package, activity, xml, located, drawn_package(xml))

    def run(self, task: str, app: str | None) -> dict[str, Any]:
        """Run the task; whatever fails on the way (the memory, the device), the result and the
        trace of the steps taken so far come back, with the reason."""
        started = now_iso()
        self._where: dict[str, Any] = {"package": app or "", "version": "unknown", "replans": 0, "here": None,
                                       "recalled": None}
        # (screen, action) → the views a step with this action failed on from that screen, in this run
        self._missed: dict[tuple[str | None, str], list[list[int]]] = {}
        try:
            status, reason = self._run(task, app)
        except AppmemError as exc:
            status, reason = "failed", f"{type(exc).__name__}: {exc}"
        where = self._where
        here: LiveScreen | None = where["here"]
        run = self._trace(task, where["package"] or (here.package if here else "unknown"), where["version"],
                          started, status, where["recalled"])
        steps = [{"index": s["index"], "action": s["action"], "label": (s["element"] or {}).get("text")
                  or (s["element"] or {}).get("content_desc") or s["input"], "outcome": s["outcome"],
                  "expected_screen": s["expected_screen"], "reached_screen": s["reached_screen"],
                  **({"why": s["why"]} if s["why"] else {})} for s in self.steps]
        return {"status": status, "reason": reason, "replans": where["replans"], "package": where["package"],
                "steps": sorted(steps + self.llm_failures, key=lambda s: (s["index"], s["action"] != "llm")),
                "ended": {"package": here.package, "activity": here.activity, "screen_id": here.screen_id}
                if here else None,
                "run": run.model_dump(mode="json")}

    def _trace(self, task: str, package: str, version: str, started: str, status: str,
               recalled: str | None) -> RunTrace:
        """The run trace, built with the model the API validates (ingest/run.py), clipped to its bounds;
        `recalled`: the stored task the run's first recalled plan replayed (its outcome counts for it)."""
        steps = [RunStep(index=s["index"], action=s["action"], element=_run_element(s["element"]),
                         input=s["input"][:5000], before_xml=s["before_xml"], after_xml=s["after_xml"],
                         before_activity=s["before_activity"][:500], after_activity=s["after_activity"][:500],
                         expected_screen=s["expected_screen"], reached_screen=s["reached_screen"],
                         outcome=s["outcome"]) for s in self.steps]
        package = package if PACKAGE.fullmatch(package or "") else "unknown"
        return RunTrace(task=task[:2000] or "(no task)", package=package[:300], app_version=(version or "unknown")[:200],
                        device=(self.driver.name or "device")[:200], started=started, ended=now_iso(),
                        status=status, steps=steps, recalled_task=recalled)

    def _run(self, task: str, app: str | None) -> tuple[str, str]:
        track = self._where
        fg_package, activity, xml = self.driver.dump()
        track["package"] = track["package"] or fg_package
        try:
            plan = self.memory.plan(task, app, screen_xml=xml, activity=activity).model_dump()
        except AppmemError as exc:
            if not 400 <= getattr(exc, "status", 400) < 500:
                raise  # the server is unreachable or failed: the run ends here, with its reason
            # a screen memory cannot place (a system overlay, an app it never saw): plan from the app itself
            plan = self.memory.plan(task, app).model_dump()
        self._replayed(plan)
        package = track["package"] = plan["package"]
        track["version"] = self._version(package)
        here = track["here"] = self.screen(package)
        if here.overlaid(package):
            here = self._dismiss(here, package)
            plan = self._replan(task, package, here)
        status, reason, cursor = "done", "", 0
        failed: Counter[tuple[str | None, str, str]] = Counter()  # (screen, action, element) → failures, this run
        tried: set[tuple[str | None, str, str]] = set()  # detours taken in this run
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
            # a step that failed from here is taken again only on another view its locator finds (a list's other row)
            again = _key(here, step) in failed and not self._untried(step, here)
            detour = self._detour(task, package, here, plan, set(failed) | tried) if again else None
            if detour is None and again and failed[_key(here, step)] >= STEP_TRIES:
                status, reason = "failed", (f"step {_label(step)!r} failed {STEP_TRIES} times from this screen and "
                                            "memory knows no other way from it")
                break
            if detour is not None:  # memory's way from here already failed in this run: go round it, then ask again
                if (over := self._replanned()) is not None:
                    status, reason = "failed", over
                    break
                tried.add(_key(here, detour))
                if detour.get("risky") and not self.confirm(detour):
                    status, reason = "stopped", f"a risky detour ({_label(detour)}) was not confirmed"
                    break
                here = self._act(detour, here, package, detour["to_screen"] or None)
                plan, cursor = self._replan(task, package, self._dismiss(here, package)), 0
                continue
            if step.get("risky") and not self.confirm(step):
                status, reason = "stopped", f"risky step {cursor + 1} ({_label(step)}) was not confirmed"
                break
            expected = step.get("to_screen") or (steps[cursor + 1]["screen_id"] if cursor + 1 < len(steps) else None)
            before = here
            here = self._act(step, here, package, expected)
            if self.steps[-1]["outcome"] == "ok":
                cursor += 1
                continue
            if cursor == len(steps) - 1 and _took_effect(step, self.steps[-1]):
                reason = f"the last step ({_label(step)}) was taken and the app reacted: {self.steps[-1]['why']}"
                break  # the task's target element is acted on: where the app then goes is the app's business
            if cursor + 1 < len(steps) and self._look_alike(before, here, steps[cursor + 1]):
                if (over := self._replanned()) is not None:
                    status, reason = "failed", over
                    break
                cursor += 1  # another screen than memory expected, but the plan's next element is on it: go on
                continue
            failed[_key(before, step)] += 1
            if self.steps[-1]["acted"]:
                self._missed.setdefault((before.screen_id, step["action"]), []).append(self.steps[-1]["element"]["bounds"])
            if (over := self._replanned()) is not None:
                status, reason = "failed", over
                break
            here = self._dismiss(here, package)
            if here.package == package and here.screen_id != before.screen_id and self._untried(step, before) \
                    and len(self.steps) < self.max_steps:
                # the step's view (a list's row) led elsewhere: back, and the step again on another view it finds
                here = self._act({"action": "back", "element": None, "input": ""}, here, package, before.screen_id)
                if here.screen_id == before.screen_id:
                    continue
            plan, cursor = self._replan(task, package, here), 0
        return status, reason

    def _look_alike(self, before: LiveScreen, here: LiveScreen, following: dict[str, Any]) -> bool:
        """The step changed the app's screen to another one than memory expected, and the plan's next element
        is on it showing its text: a look-alike of the expected screen (memory splits screens by content:
        another list's rows, a tab's items), from which the plan can go on instead of being asked again."""
        element = following.get("element")
        if element is None or here.package != before.package or here.xml == before.xml \
                or here.overlaid(following.get("package") or here.package):
            return False
        found = ground(element, here.xml, self._missed.get((here.screen_id, following["action"]), ()))
        return found is not None and _shows(element, node_at(here.xml, found[0]))

    def _untried(self, step: dict[str, Any], here: LiveScreen) -> bool:
        """The step's locator finds a view on this screen that the step did not already fail on in this run."""
        element, missed = step.get("element"), self._missed.get((here.screen_id, step["action"]), [])
        found = ground(element, here.xml, missed) if element is not None and missed else None
        return found is not None and found[0].as_list() not in missed

    def _replanned(self) -> str | None:
        """Count one re-plan (a detour or a failed step); the reason to give up when it is over the budget."""
        self._where["replans"] += 1
        if self._where["replans"] > self.max_replans:
            return f"gave up after {self.max_replans} re-plans: {self.steps[-1]['why']}"
        return None

    def _dismiss(self, here: LiveScreen, package: str) -> LiveScreen:
        """BACK while another package's window covers the focused app (at most OVERLAY_BACKS times)."""
        for _ in range(OVERLAY_BACKS):
            if not here.overlaid(package) or len(self.steps) >= self.max_steps:
                break
            here = self._act({"action": "back", "element": None, "input": ""}, here, package, None)
        return here

    def _detour(self, task: str, package: str, here: LiveScreen, plan: dict[str, Any],
                avoid: set[tuple[str | None, str, str]]) -> dict[str, Any] | None:
        """Another way on from this screen than the one that failed: the best of memory's hints for it
        (towards a target, fewest steps left, best target first) that is on the screen and was not
        tried from here in this run; else BACK once; None when nothing is left."""
        start = (plan.get("start") or {}).get("screen_id")
        hints = plan.get("hints") if start and start == here.screen_id else None  # the plan's are for its start
        if hints is None and here.package == package and here.screen_id:
            hints = self.memory.hints(task, package, here.xml, None, here.activity).model_dump()["hints"]
        options = sorted((h for h in hints or () if h["action"] in DETOUR_ACTIONS and h["element_id"]
                          and (here.screen_id, h["action"], h["element_id"]) not in avoid),
                         key=lambda h: (h["target"] is None, h["steps_after"], -h["score"]))
        for hint in options:
            element = {"id": hint["element_id"], "label": hint["element"], "text": "", "content_desc": "",
                       "locators": hint["locators"], "bounds": None}
            if ground(element, here.xml):
                return {"action": hint["action"], "element": element, "input": "", "to_screen": hint["to_screen"],
                        "risky": is_risky(hint["element"])}
        back = {"action": "back", "element": None, "input": "", "to_screen": ""}
        return None if _key(here, back) in avoid else back

    def _version(self, package: str) -> str:
        try:
            return self.driver.app_version(package)[0]  # (versionName, versionCode)
        except DeviceError:
            return "unknown"

    def _replan(self, task: str, package: str, here: LiveScreen) -> dict[str, Any]:
        if here.package != package:
            return self._replayed(self.memory.plan(task, package).model_dump())
        return self._replayed(self.memory.plan(task, package, screen_xml=here.xml, activity=here.activity).model_dump())

    def _replayed(self, plan: dict[str, Any]) -> dict[str, Any]:
        """Note the stored task a plan recalled (the first of the run): the run reports it back."""
        self._where["recalled"] = self._where["recalled"] or (plan.get("recalled") or {}).get("task_id")
        return plan

    def _target(self, step: dict[str, Any], here: LiveScreen) -> tuple[Bounds | None, str]:
        """The element's bounds on the current screen (locator queue, then a slot's row by scrolling)."""
        element = step.get("element")
        if element is None:
            return None, ""
        found = ground(element, here.xml, self._missed.get((here.screen_id, step["action"]), ()))
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
            outcome = self._outcome(here, after, package, expected, step.get("to_package") or "")
            why = "" if outcome == "ok" else f"expected screen {expected}, reached {after.screen_id or after.package}"
        self.steps.append({**record, "acted": bounds is not None, "after_xml": after.xml, "after_activity": after.activity,
                           "reached_screen": after.screen_id, "outcome": outcome, "why": why})
        self._where["here"] = after
        if self.progress:
            self.progress(self.steps[-1])
        return after

    @staticmethod
    def _outcome(before: LiveScreen, after: LiveScreen, package: str, expected: str | None, expected_package: str) -> str:
        if expected is None or after.screen_id == expected:
            return "ok"
        if after.package != package and before.package == package:
            # the app left the foreground: where memory saw this step go (home, a share), else a crash
            return "ok" if after.package == expected_package else "crash"
        if after.screen_id is None:  # a screen memory has not seen: judge by the next step's grounding
            return "ok"
        return "no_effect" if after.xml == before.xml else "missed"

    def _without_route(self, task: str, package: str, here: LiveScreen) -> tuple[str, str, LiveScreen]:
        if self.llm_step is None:
            return "stopped", ("memory has no route for this task from this screen, and no LLM is configured "
                               "(APPMEM_LLM_BASE_URL / APPMEM_LLM_MODEL) to go on step by step"), here
        invalid = 0
        while len(self.steps) + len(self.llm_failures) < self.max_steps:
            hints = self.memory.hints(task, package, here.xml, None, here.activity).model_dump()["hints"] \
                if here.package == package else []
            try:
                step = self.llm_step(task, here, hints)
            except LlmReplyError as exc:  # a failed step with its reason, never "done"
                invalid += 1
                self.llm_failures.append({"index": len(self.steps), "action": "llm", "label": None,
                                          "outcome": "invalid_reply", "expected_screen": None,
                                          "reached_screen": here.screen_id, "why": str(exc)})
                if invalid > LLM_RETRIES:
                    return "failed", f"the LLM gave {invalid} invalid replies in a row: {exc}", here
                continue
            invalid = 0
            if step.get("done"):
                return "done", "the LLM judged the task done", here
            if step.get("risky") and not self.confirm(step):
                return "stopped", "a risky step proposed by the LLM was not confirmed", here
            here = self._act(step, here, package, None)
        return "failed", f"stopped after --max-steps {self.max_steps}", here


def _key(here: LiveScreen, step: dict[str, Any]) -> tuple[str | None, str, str]:
    """A step as this run remembers it: where it was taken, what, on which element."""
    element = step.get("element") or {}
    return here.screen_id, step["action"], element.get("id") or element.get("label") or ""


def _took_effect(step: dict[str, Any], record: dict[str, Any]) -> bool:
    """The step acted on its element, found on the screen and showing the same text (a locator may find
    another view in its place), and the screen changed without a crash."""
    element = step.get("element")
    if element is None or record["after_xml"] == record["before_xml"] or not _shows(element, record["element"]):
        return False
    return not parse_hierarchy(record["after_xml"], "", record["after_activity"]).crashed


def _shows(element: dict[str, Any], view: dict[str, Any] | None) -> bool:
    """Whether a dumped view shows the planned element's text or description (when it has one): a locator
    may find another view in its place."""
    shown = {(element.get(k) or "").strip() for k in ("text", "content_desc")} - {""}
    return not shown or bool(shown & {((view or {}).get(k) or "").strip() for k in ("text", "content_desc")})


def _label(step: dict[str, Any]) -> str:
    element = step.get("element") or {}
    return element.get("label") or element.get("text") or element.get("content_desc") or step.get("action", "")


def _run_element(element: dict[str, Any] | None) -> RunElement | None:
    if element is None:
        return None
    bounds = [int(b) for b in (element.get("bounds") or [0, 0, 0, 0])][:4]
    return RunElement(text=str(element.get("text") or "")[:5000], content_desc=str(element.get("content_desc") or "")[:5000],
                      resource_id=str(element.get("resource_id") or "")[:500],
                      class_name=str(element.get("class_name") or "")[:500],
                      bounds=bounds if len(bounds) == 4 else [0, 0, 0, 0])


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
    if result.get("ended"):
        lines.append(f"ended on {result['ended']['screen_id'] or 'a screen memory does not know'} "
                     f"({result['ended']['package']})")
    if result.get("trace_id"):
        lines.append(f"trace: {result['trace_id']}")
    if result.get("contribution") and result["contribution"] != "sent":
        lines.append(f"contribution: {result['contribution']}")
    return "\n".join(lines)
