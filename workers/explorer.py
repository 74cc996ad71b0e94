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
from dataclasses import dataclass, field

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
class Exploration:
    """One execution of a job so far: the trace it streams, the chunk in progress, what it saw and counted."""
    trace: Trace
    chunk: int  # the index of the chunk in progress
    step_index: int  # the index of the next step in the whole trace
    pending: list[Step] = field(default_factory=list)  # the chunk's steps so far
    states: dict[str, UIState] = field(default_factory=dict)  # every state seen, by id
    app_states: set[str] = field(default_factory=set)  # those outside the launcher
    taken: int = 0  # actions taken by this execution
    restarts: int = 0  # launches of the app
    outside: int = 0  # steps in a row that ended outside the app
    unchanged: int = 0  # steps in a row that left the state as it was
    moves: dict[tuple[str, str], str] = field(default_factory=dict)  # (screen id, action signature) → where it led
    stopped: str = "actions"  # the budget that ended it: actions or seconds

    def saw(self, seen: Seen) -> None:
        self.states[seen.state.state_id] = seen.state
        if not is_launcher(seen.state.package):
            self.app_states.add(seen.state.state_id)


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
        """Explore until the job's budget of actions or seconds (less `seconds_spent` by earlier executions) is
        spent, writing each chunk as it fills; resumed after the chunks already in the graph."""
        started = time.monotonic()
        walk = self._resume()
        budget = self.job.max_actions - walk.step_index
        deadline = started + max(0.0, self.job.max_seconds - seconds_spent)
        if walk.chunk:
            log.info("job %s resumes at chunk %d (%d actions left)", self.job.job_id, walk.chunk, budget)
        self.driver.perform(Action(ActionType.HOME), None)  # leave whatever the last job left on screen
        current = self.observe(walk.trace.app_version)
        while walk.taken < budget:
            if time.monotonic() >= deadline:
                walk.stopped = "seconds"
                break
            current = self._step(walk, current)
            if len(walk.pending) == self.job.chunk_steps:
                self._flush(walk)
        if walk.pending:
            self._flush(walk)
        walk.trace.states = {sid: walk.states[sid] for sid in walk.app_states}
        self.sink.settle(walk.trace)
        return ExploreResult(job_id=self.job.job_id, trace_id=walk.trace.id, package=self.job.package,
                             app_version=walk.trace.app_version, device=self.driver.name, actions=walk.step_index,
                             new_actions=walk.taken, chunks=walk.chunk, states=len(walk.app_states),
                             restarts=walk.restarts, seconds=round(time.monotonic() - started, 3), stopped=walk.stopped)

    def _resume(self) -> Exploration:
        """This execution's start: after the chunks of the job's trace already in the graph."""
        job, tid = self.job, trace_id(self.job.job_id)
        done_chunks = self.sink.written(tid)
        chunk = max(done_chunks) + 1 if done_chunks else 0
        version, code = self.driver.app_version(job.package)
        trace = Trace(id=tid, source="explorer", package=job.package, app_version=version,
                      device=self.driver.name, explorer=f"appmem-{job.policy}", started=now_iso(), ended="",
                      version_code=code)
        return Exploration(trace, chunk, chunk * job.chunk_steps)

    def _step(self, walk: Exploration, current: Seen) -> Seen:
        """One action chosen on `current`, taken and judged; the screen it led to."""
        self.alive()
        walk.saw(current)
        action, bounds = self.decide(current, walk.outside, walk.unchanged)
        walk.restarts += action.type == ActionType.START_APP
        self.driver.perform(action, bounds)
        target = self.observe(walk.trace.app_version)
        walk.saw(target)
        log.debug("job %s step %d: %s %s %s -> %s %s", self.job.job_id, walk.step_index, current.state.package,
                  current.state.state_id[:8], action.signature, target.state.package, target.state.state_id[:8])
        walk.pending.append(self.judged(Step(walk.step_index, current.state.state_id, action, target.state.state_id,
                                             at=target.state.observed_at), current, target, walk.moves))
        if not is_launcher(current.state.package):
            self.policy.record(current, action, target)
        relaunched = action.type in (ActionType.START_APP, ActionType.STOP_APP)
        walk.outside = 0 if target.state.package == self.job.package or relaunched else walk.outside + 1
        walk.unchanged = walk.unchanged + 1 if target.state.state_id == current.state.state_id else 0
        walk.step_index += 1
        walk.taken += 1
        return target

    def _flush(self, walk: Exploration) -> None:
        """Write the chunk in progress (its steps and the states they touch), then start the next one."""
        wanted = {s.source_state for s in walk.pending} | {s.target_state for s in walk.pending}
        walk.trace.states = {sid: walk.states[sid] for sid in wanted}
        walk.trace.steps = walk.pending
        walk.trace.ended = now_iso()
        self.sink.write(walk.trace, walk.chunk, walk.pending)
        walk.chunk, walk.pending = walk.chunk + 1, []

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


