"""The explorer: observe → pick an action → act → observe, on one device, streaming its trace to the graph.

One job explores one app for a budget of actions and seconds. Rules on top of
the policy (workers/policies.py):
- outside the app (another app it opened, a system dialog) it goes on
  exploring for `foreign_patience` steps, then presses BACK, and after twice
  that many, or at once on the home screen, relaunches the app (START_APP),
  as DroidBot does;
- when `stuck_patience` actions in a row left the state unchanged, or the
  policy has nothing left to try, it force-stops and relaunches the app;
- risky elements (settings.risky_words) are never candidates.

The trace streams in chunks of `chunk_steps` steps: chunk k holds steps
k·N … k·N+N−1 and is written (scrubbed, in one transaction, with its marker on
the Trace node) before exploring goes on, so a worker that dies loses at most
the chunk in progress. The Trace id is a function of the job id only
(`trace_id`). Retries *resume*: a new execution on any device reads which
chunks of the trace are in the graph (`explore_progress`), continues with
chunk max+1 and a budget reduced by what was written. A chunk is written at
most once (chunk markers), so a retried or duplicated job never counts an
observation twice; the steps of a lost chunk are explored again, not replayed.
Writes are fenced: under the graph write lock the job lease must still be ours,
so an execution that lost its lease (hung, then woke up) cannot write
(workers/sinks.py). The job's message and answer: workers/jobspec.py; what the
frontier knows of the fleet: workers/knowledge.py.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from appmem.formats.ui import Action, ActionType, Bounds, UIState
from appmem.graph.model import Outcome, Step, Trace
from appmem.graph.times import now_iso
from appmem.graph.screens import elements_of, screen_of
from appmem.graph.vocabulary import is_launcher
from appmem.device.driver import DeviceDriver
from appmem.workers.jobspec import ExploreResult, JobSpec, trace_id
from appmem.workers.candidates import Seen, candidates, leaf_keys
from appmem.workers.policies import Policy
from appmem.workers.sinks import ChunkSink

log = logging.getLogger(__name__)


@dataclass
class Explorer:
    driver: DeviceDriver
    job: JobSpec
    policy: Policy
    sink: ChunkSink
    risky_words: tuple[str, ...]
    alive: Callable[[], None]  # raises when the job must stop (lease lost)
    # Where the shared memory says (screen id, action signature) leads; None = no expectation.
    expected: Callable[[str, str], str | None] = lambda screen_id, signature: None

    def observe(self, version: str) -> Seen:
        state = self.driver.observe()
        state.observed_at = now_iso()
        screen = screen_of(state, self.job.package, version)
        return Seen(state, screen, elements_of(state, screen, leaf_keys(state)))

    def run(self, seconds_spent: float = 0.0) -> ExploreResult:
        job, started = self.job, time.monotonic()
        tid = trace_id(job.job_id)
        done_chunks = self.sink.written(tid)
        chunk = max(done_chunks) + 1 if done_chunks else 0
        step_index = chunk * job.chunk_steps
        version, code = self.driver.app_version(job.package)
        trace = Trace(id=tid, source="explorer", package=job.package, app_version=version,
                      device=self.driver.name, explorer=f"appmem-{job.policy}", started=now_iso(), ended="",
                      version_code=code)
        budget = job.max_actions - step_index
        deadline = started + max(0.0, job.max_seconds - seconds_spent)
        if chunk:
            log.info("job %s resumes at chunk %d (%d actions left)", job.job_id, chunk, budget)
        pending: list[Step] = []
        states: dict[str, UIState] = {}
        app_states: set[str] = set()
        taken = restarts = outside = unchanged = 0
        moves: dict[tuple[str, str], str] = {}  # (screen id, action signature) → where it led in this run
        stopped = "actions"

        def flush() -> None:
            nonlocal chunk, pending
            wanted = {s.source_state for s in pending} | {s.target_state for s in pending}
            trace.states = {sid: states[sid] for sid in wanted}
            trace.steps = pending
            trace.ended = now_iso()
            self.sink.write(trace, chunk, pending)
            chunk, pending = chunk + 1, []

        self.driver.perform(Action(ActionType.HOME), None)  # leave whatever the last job left on screen
        current = self.observe(version)
        while taken < budget:
            if time.monotonic() >= deadline:
                stopped = "seconds"
                break
            self.alive()
            states[current.state.state_id] = current.state
            if not is_launcher(current.state.package):
                app_states.add(current.state.state_id)
            action, bounds = self.decide(current, outside, unchanged)
            restarts += action.type == ActionType.START_APP
            self.driver.perform(action, bounds)
            target = self.observe(version)
            states[target.state.state_id] = target.state
            if not is_launcher(target.state.package):
                app_states.add(target.state.state_id)
            log.debug("job %s step %d: %s %s %s -> %s %s", job.job_id, step_index, current.state.package, current.state.state_id[:8],
                      action.signature, target.state.package, target.state.state_id[:8])
            pending.append(self.judged(Step(step_index, current.state.state_id, action, target.state.state_id,
                                            at=target.state.observed_at), current, target, moves))
            if not is_launcher(current.state.package):
                self.policy.record(current, action, target)
            relaunched = action.type in (ActionType.START_APP, ActionType.STOP_APP)
            outside = 0 if target.state.package == job.package or relaunched else outside + 1
            unchanged = unchanged + 1 if target.state.state_id == current.state.state_id else 0
            step_index += 1
            taken += 1
            current = target
            if len(pending) == job.chunk_steps:
                flush()
        if pending:
            flush()
        trace.states = {sid: states[sid] for sid in app_states}
        self.sink.settle(trace)
        return ExploreResult(job_id=job.job_id, trace_id=tid, package=job.package, app_version=version,
                             device=self.driver.name, actions=step_index, new_actions=taken, chunks=chunk,
                             states=len(app_states), restarts=restarts,
                             seconds=round(time.monotonic() - started, 3), stopped=stopped)

    def judged(self, step: Step, current: Seen, target: Seen, moves: dict[tuple[str, str], str]) -> Step:
        """The step with its outcome: a crash/ANR dialog is a crash; a tap on a clickable
        element that changed nothing, where this run or the shared memory saw it move
        elsewhere, is no_effect on that expected edge. `moves` learns the step's move."""
        here, signature = current.screen.id, step.action.signature
        if target.state.crashed:
            step.outcome = Outcome.CRASH
        elif step.target_state == step.source_state and step.action.type is ActionType.TAP \
                and self.clickable(current, step.action.element_key):
            expected = moves.get((here, signature)) or self.expected(here, signature)
            if expected:
                step.outcome, step.expected_screen = Outcome.NO_EFFECT, expected
        elif target.screen.id != here:
            moves[(here, signature)] = target.screen.id
        return step

    @staticmethod
    def clickable(seen: Seen, key: str) -> bool:
        return any(e.key == key and "clickable" in e.flags for e in seen.elements.values())

    def decide(self, current: Seen, outside: int, unchanged: int) -> tuple[Action, Bounds | None]:
        package, patience = self.job.package, self.job.foreign_patience
        if current.state.package != package:
            if is_launcher(current.state.package) or outside >= 2 * patience:
                return Action(ActionType.START_APP, text=package), None
            if outside >= patience:
                return Action(ActionType.BACK), None
        elif unchanged >= self.job.stuck_patience:
            log.debug("job %s: stuck on %s, restarting", self.job.job_id, current.state.state_id)
            return Action(ActionType.STOP_APP, text=package), None
        choice = self.policy.choose(current, candidates(current, self.risky_words))
        if choice is None:
            return Action(ActionType.STOP_APP, text=package), None
        return choice.action, choice.bounds


