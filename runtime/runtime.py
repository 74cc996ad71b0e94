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
is dismissed with BACK before planning from it, unless the task's target is on
that very window (memory keeps a window a recording saw over the app as one of the
app's screens: the plan's steps are all on it). Memory splits look-alike screens by content and keeps
a list's rows as one element: a step that lands on another screen than expected, on which the plan's
next element is shown, goes on with the plan; a step whose view (a row) led elsewhere is backed out of
with BACK and taken again on another view its locator finds (each counts as a re-plan). The plan's last step is its target: once it is
taken on its element and the app reacts, the run is done even when the app shows another screen
than memory expected (an app that is not deterministic: a dialog's CANCEL returns to whatever
was under it, a link opens a page still loading); not after a crash. A run stuck (its re-plans spent, or no way
left in memory from where it is) restarts the app once and goes on from its launch screen, where the recorded
ways begin, with a fresh budget (`relaunches`; not after it typed text). With no route in memory the runtime asks an
LLM step by step (with appmem's hints) when one is configured, else it stops
and says why. Every step, failures included, goes into a run trace
(`contract.RunTrace`) that is contributed back.

This module is the re-plan loop and acting on the device; judging one step is runtime/outcome.py, what
the run learned of its failed steps runtime/failed_steps.py, another way
on from a screen where a step failed runtime/detour.py, its trace and result runtime/trace.py.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Callable

from appmem.contract.backend import MemoryBackend
from appmem.contract.plan import Plan
from appmem.runtime.move import Move
from appmem.runtime.outcome import label as _label, outcome, shows, took_effect
from appmem.runtime.screen import LiveScreen
from appmem.runtime.detour import another_way
from appmem.runtime.failed_steps import FailedSteps, came_from, step_key as _key
from appmem.runtime.stepwise import LlmReplyError, LlmStep
from appmem.runtime.grounding import drawn_package, find_text, node_at, scrollable, shown_at
from appmem.runtime.trace import RunState, result, run_trace, trace_element
from appmem.errors import AppmemError, DeviceError, Interrupted, NotFound
from appmem.formats.ui import Action, ActionType, Bounds
from appmem.graph.rows import now_iso
from appmem.graph.vocabulary import is_risky
from appmem.device.driver import DeviceDriver

log = logging.getLogger(__name__)

SLOT_SCROLLS = 4
LLM_RETRIES = 2  # invalid LLM replies in a row before the run fails
OVERLAY_BACKS = 2  # BACK presses that may dismiss a window drawn over the app before the run goes on without
STEP_TRIES = 2  # a step may fail this often from one screen (once more when there is no way round it)


@dataclass(frozen=True)
class Ending:
    """How a run (or one launch of the app in it) ended; `stuck`: memory's ways from where it is are spent,
    which a relaunch of the app may change."""
    status: str  # done | failed | stopped
    reason: str = ""
    stuck: bool = False


@dataclass
class Course:
    """Where a run is in its plan: the plan, the index of its next step, the device's screen."""
    plan: Plan
    here: LiveScreen
    cursor: int = 0

    def moves(self) -> list[Move]:
        return [Move.planned(s) for s in self.plan.steps]

    def follow(self, plan: Plan) -> None:
        """Go on with a new plan, from its first step."""
        self.plan, self.cursor = plan, 0


def planned_app(plan: Plan, front: str) -> str:
    """The one app the run goes on in. A plan for a short name that designates several apps names them all
    (comma-separated): the one its steps end in, else the one in front, else the first."""
    named = plan.package.split(",")
    ending = next((s.package for s in reversed(plan.steps) if s.package in named), None)
    return ending or (front if front in named else named[0])


@dataclass
class Runtime:
    """`memory` answers `plan(...)`, `locate(...)` and `hints(...)` with `contract` models: a
    `contract.client.ApiClient` or the local `agent.service.Service`."""

    driver: DeviceDriver
    memory: MemoryBackend
    confirm: Callable[[dict[str, Any]], bool]
    max_steps: int = 30
    max_replans: int = 8  # chosen leave-one-app-out over the twin apps from 4, 8, 16 (docs/service.md, bench/runtime.py)
    relaunches: int = 1  # restarts of a stuck run's app (`_relaunch`), chosen leave-one-app-out from 0, 1, 2
    llm_step: LlmStep | None = None
    risky_words: tuple[str, ...] = ()  # added to the vocabulary's (Settings.risky_words)
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
        self._where = RunState(package=app or "")
        self._budget_from = 0  # the re-plans counted before the last relaunch: each launch has max_replans
        self._failed = FailedSteps()
        self._came: dict[str, str] | None = None  # the step just taken, as memory knows it (plan requests)
        try:
            ending = self._run(task, app)
            while ending.stuck and self._relaunch():
                ending = self._run(task, app)
        except Interrupted as exc:  # raised by `progress` (runtime/commands.py) after a step: the steps taken stand
            ending = Ending("stopped", str(exc))
        except AppmemError as exc:
            ending = Ending("failed", f"{type(exc).__name__}: {exc}")
        where = self._where
        run = run_trace(self.steps, task, where.package or (where.here.package if where.here else "unknown"),
                        where.version, self.driver.name, started, ending.status, where.recalled)
        return result(ending.status, ending.reason, where, self.steps, self.llm_failures, run)

    def _run(self, task: str, app: str | None) -> Ending:
        """The task from the screen the device shows, one step of the plan (or one way round) at a time."""
        course, package = self._start(task, app)
        while (ending := self._advance(task, package, course)) is None:
            pass
        return ending

    def _start(self, task: str, app: str | None) -> tuple[Course, str]:
        """The first plan, from the screen the device shows, and the app the run goes on in; a window another
        package draws over the app is dismissed first, unless the plan's steps are on it."""
        where = self._where
        fg_package, activity, xml = self.driver.dump()
        where.package = where.package or fg_package
        try:
            plan = self.memory.plan(task, app, screen_xml=xml, activity=activity)
        except AppmemError as exc:
            if not 400 <= getattr(exc, "status", 400) < 500:
                raise  # the server is unreachable or failed: the run ends here, with its reason
            # a screen memory cannot place (a system overlay, an app it never saw): plan from the app itself
            plan = self.memory.plan(task, app)
        self._replayed(plan)
        package = where.package = planned_app(plan, fg_package)
        where.version = self._version(package)
        here = where.here = self.screen(package)
        if here.overlaid(package) and not self._all_steps_on_screen(plan, here):
            here = self._dismiss(here, package)
            plan = self._replan(task, package, here)
        return Course(plan, here), package

    def _advance(self, task: str, package: str, course: Course) -> Ending | None:
        """One step of the plan, or one way round a step that already failed from here; the run's ending, or
        None to go on."""
        moves = course.moves()
        if moves and course.cursor >= len(moves):
            return Ending("done")
        if self._bring_app_forward(task, package, course, moves):
            moves = course.moves()
        if course.plan.route == "none" or not moves:
            status, reason, course.here = self._without_route(task, package, course.here)
            return Ending(status, reason, stuck=self.llm_step is None)
        if len(self.steps) >= self.max_steps:
            return Ending("failed", f"stopped after --max-steps {self.max_steps}")
        step, failed = moves[course.cursor], self._failed
        # a step that failed from here is taken again only on another view its locator finds (a list's other row)
        if _key(course.here, step) in failed.failed and not failed.untried(step, course.here):
            detour = another_way(self.memory, task, package, course.here, course.plan, failed.avoid())
            if detour is not None:  # memory's way from here already failed in this run: go round it, then ask again
                return self._go_round(task, package, course, detour)
            if failed.failed[_key(course.here, step)] >= STEP_TRIES:
                return Ending("failed", f"step {_label(step)!r} failed {STEP_TRIES} times from this screen and "
                                        "memory knows no other way from it", stuck=True)
        return self._take(task, package, course, moves)

    def _bring_app_forward(self, task: str, package: str, course: Course, moves: list[Move]) -> bool:
        """Launch the app when another is in front of the package the next step acts in (at the start, or a step
        left it) and plan again from its screen; whether it did."""
        where = (moves[course.cursor].package or package) if moves else package
        if course.here.package == where or len(self.steps) >= self.max_steps:
            return False
        course.here = self._act(Move.app("start_app", package), course.here, package, None)
        course.follow(self._replan(task, package, course.here))
        return True

    def _go_round(self, task: str, package: str, course: Course, detour: Move) -> Ending | None:
        """Take the detour (a re-plan), then plan again from where it led."""
        if (over := self._replanned()) is not None:
            return Ending("failed", over, stuck=True)
        self._failed.tried.add(_key(course.here, detour))
        if self._risky(detour, course.here) and not self.confirm(detour.as_dict()):
            return Ending("stopped", f"a risky detour ({_label(detour)}) was not confirmed")
        course.here = self._act(detour, course.here, package, detour.to_screen or None)
        course.follow(self._replan(task, package, self._dismiss(course.here, package)))
        return None

    def _take(self, task: str, package: str, course: Course, moves: list[Move]) -> Ending | None:
        """Take the plan's next step: on as planned, done when it was the target and the app reacted, on with the
        plan on a look-alike screen showing its next element; else what failed is remembered and the run recovers."""
        cursor, before = course.cursor, course.here
        step = moves[cursor]
        if self._risky(step, before) and not self.confirm(step.as_dict()):
            return Ending("stopped", f"risky step {cursor + 1} ({_label(step)}) was not confirmed")
        expected = step.to_screen or (moves[cursor + 1].screen_id if cursor + 1 < len(moves) else None)
        course.here = self._act(step, before, package, expected)
        if self.steps[-1]["outcome"] == "ok":
            course.cursor += 1
            return None
        if cursor == len(moves) - 1 and took_effect(step, self.steps[-1]):
            # the task's target element is acted on: where the app then goes is the app's business
            return Ending("done", f"the last step ({_label(step)}) was taken and the app reacted: {self.steps[-1]['why']}")
        if cursor + 1 < len(moves) and self._look_alike(before, course.here, moves[cursor + 1]):
            if (over := self._replanned()) is not None:
                return Ending("failed", over, stuck=True)
            course.cursor += 1  # another screen than memory expected, but the plan's next element is on it: go on
            return None
        return self._recover(task, package, course, step, before)

    def _recover(self, task: str, package: str, course: Course, step: Move, before: LiveScreen) -> Ending | None:
        """After a failed step (a re-plan): the step again on another view its locator finds, when its view (a
        list's row) led elsewhere and BACK returns; else a new plan from where the device is."""
        self._failed.fail(before, step, self.steps[-1])
        if (over := self._replanned()) is not None:
            return Ending("failed", over, stuck=True)
        here = course.here = self._dismiss(course.here, package)
        if here.package == package and here.screen_id != before.screen_id and self._failed.untried(step, before) \
                and len(self.steps) < self.max_steps:
            here = course.here = self._act(Move.back(), here, package, before.screen_id)
            if here.screen_id == before.screen_id:
                return None
        course.follow(self._replan(task, package, here))
        return None

    def _relaunch(self) -> bool:
        """Restart the app (force-stop, launch) when the run is stuck, so that it goes on from the app's launch
        screen, where the recorded ways begin, with a fresh re-plan budget and what failed forgotten (the app's
        state may have been why): at most `relaunches` times, never without re-planning (`max_replans` 0), and
        never after the run typed text (a form's unsaved input would be lost)."""
        where = self._where
        if where.relaunches >= self.relaunches or not self.max_replans or where.here is None \
                or len(self.steps) + 2 >= self.max_steps or any(s["action"] == "input" for s in self.steps):
            return False
        where.relaunches += 1
        where.replans += 1
        self._budget_from = where.replans
        self._failed, self._came = FailedSteps(), None
        here, package = where.here, where.package
        for action in ("stop_app", "start_app"):
            here = self._act(Move.app(action, package), here, package, None)
        return True

    def _look_alike(self, before: LiveScreen, here: LiveScreen, following: Move) -> bool:
        """The step changed the app's screen to another one than memory expected, and the plan's next element
        is on it showing its text: a look-alike of the expected screen (memory splits screens by content:
        another list's rows, a tab's items), from which the plan can go on instead of being asked again."""
        element = following.element
        if element is None or here.package != before.package or here.xml == before.xml \
                or here.overlaid(following.package or here.package):
            return False
        found = self._failed.find(element, following.action, here)
        return found is not None and shows(element, node_at(here.xml, found[0]))

    def _risky(self, step: Move, here: LiveScreen) -> bool:
        """Whether the step needs a confirmation: memory says so, or the view its locators find on the device
        shows risky words (memory names an element by its own text: a menu row's is in a text view inside)."""
        if step.risky:
            return True
        found = self._failed.find(step.element, step.action, here) if step.element else None
        return found is not None and is_risky(shown_at(here.xml, found[0]), extra=self.risky_words)

    @staticmethod
    def _all_steps_on_screen(plan: Plan, here: LiveScreen) -> bool:
        """The plan's steps are all taken on this very screen (its target is on it)."""
        return bool(plan.steps) and here.screen_id is not None and all(s.screen_id == here.screen_id for s in plan.steps)

    def _replanned(self) -> str | None:
        """Count one re-plan (a detour or a failed step); the reason to give up when it is over the budget."""
        self._where.replans += 1
        if self._where.replans - self._budget_from > self.max_replans:
            return f"gave up after {self.max_replans} re-plans: {self.steps[-1]['why']}"
        return None

    def _dismiss(self, here: LiveScreen, package: str) -> LiveScreen:
        """BACK while another package's window covers the focused app (at most OVERLAY_BACKS times)."""
        for _ in range(OVERLAY_BACKS):
            if not here.overlaid(package) or len(self.steps) >= self.max_steps:
                break
            here = self._act(Move.back(), here, package, None)
        return here

    def _version(self, package: str) -> str:
        try:
            return self.driver.app_version(package)[0]  # (versionName, versionCode)
        except DeviceError:
            return "unknown"

    def _replan(self, task: str, package: str, here: LiveScreen) -> Plan:
        """The plan from where the device is, after the step just taken (`came_from`: where an action lands
        can depend on it, as BACK does)."""
        if here.package != package:
            return self._replayed(self.memory.plan(task, package))
        return self._replayed(self.memory.plan(task, package, screen_xml=here.xml, activity=here.activity,
                                               came_from=self._came, avoid=self._failed.avoided(STEP_TRIES)))

    def _replayed(self, plan: Plan) -> Plan:
        """Note the stored task a plan recalled (the first of the run): the run reports it back."""
        self._where.recalled = self._where.recalled or (plan.recalled or {}).get("task_id")
        return plan

    def _target(self, step: Move, here: LiveScreen) -> tuple[Bounds | None, str]:
        """The element's bounds on the current screen (locator queue, then a slot's row by scrolling)."""
        element = step.element
        if element is None:
            return None, ""
        found = self._failed.find(element, step.action, here)
        if found:
            return found[0], ""
        text = step.input if step.slot == "item" else (element.get("text") or "")
        for _ in range(SLOT_SCROLLS if text else 0):
            if (row := find_text(here.xml, text)) is not None:
                return row, ""
            area = scrollable(here.xml)
            if area is None:
                break
            self.driver.perform(Action(ActionType.SCROLL, text="DOWN"), area)
            here.package, here.activity, here.xml = self.driver.dump()
        return None, f"element {_label(step)!r} is not on the screen"

    def _act(self, step: Move, here: LiveScreen, package: str, expected: str | None) -> LiveScreen:
        kind = ActionType(step.action)
        bounds, why = self._target(step, here)
        element = step.element
        record = {"index": len(self.steps), "action": kind.value, "input": step.input,
                  "element": trace_element(element, bounds, here.xml), "before_xml": here.xml, "before_activity": here.activity,
                  "expected_screen": expected}
        if kind.needs_element and bounds is None:
            after, judged = here, "missed"
            why = why or f"{kind.value} needs an element"
        else:
            self.driver.perform(Action(kind, text=step.input or ("DOWN" if kind is ActionType.SCROLL else "")), bounds)
            try:
                after = self.screen(package)
            except AppmemError:  # memory failed after the device acted: the step stays in the trace, unlocated
                after = LiveScreen(*self.driver.dump())
                self.steps.append(self._taken(record, bounds, after, "ok", "memory could not locate the screen"))
                raise
            judged = outcome(here, after, package, expected, step.to_package)
            why = "" if judged == "ok" else f"expected screen {expected}, reached {after.screen_id or after.package}"
        self._came = came_from(step, here) if bounds is not None or not kind.needs_element else None
        self.steps.append(self._taken(record, bounds, after, judged, why))
        self._where.here = after
        if self.progress:
            self.progress(self.steps[-1])
        return after

    @staticmethod
    def _taken(record: dict[str, Any], bounds: Bounds | None, after: LiveScreen, judged: str, why: str) -> dict[str, Any]:
        """A step as the trace and the result keep it; `judged` "ok" with no reached screen when memory could not
        place where it landed (as for a screen memory has not seen: the importer locates its dump itself)."""
        return {**record, "acted": bounds is not None, "after_xml": after.xml, "after_activity": after.activity,
                "reached_screen": after.screen_id, "outcome": judged, "why": why}

    def _without_route(self, task: str, package: str, here: LiveScreen) -> tuple[str, str, LiveScreen]:
        if self.llm_step is None:
            return "stopped", ("memory has no route for this task from this screen, and no LLM is configured "
                               "(APPMEM_LLM_BASE_URL / APPMEM_LLM_MODEL) to go on step by step"), here
        invalid = 0
        while len(self.steps) + len(self.llm_failures) < self.max_steps:
            hints = [h.model_dump() for h in self.memory.hints(task, package, here.xml, None, here.activity).hints] \
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
            if step is None:
                return "done", "the LLM judged the task done", here
            if step.risky and not self.confirm(step.as_dict()):
                return "stopped", "a risky step proposed by the LLM was not confirmed", here
            here = self._act(step, here, package, None)
        return "failed", f"stopped after --max-steps {self.max_steps}", here

