"""Exploration policies: which action to take on the screen the device shows.

A policy chooses among the state's candidates (workers/candidates.py).

- `random`: a uniformly random candidate (seeded).
- `dfs`: DroidBot's greedy depth-first search (UtgGreedySearchPolicy, in its
  default non-random order) over concrete states: an action not yet taken from
  this state first; else the first step of a shortest known path to a state that
  still has one; else None (the explorer restarts the app, as DroidBot stops it).
  Both greedy policies predict no-ops from earlier tries on the same screen and
  re-try effective actions of non-deterministic apps before restarting (`GreedyPolicy`).
- `frontier`: the same search with the fleet's knowledge (`Knowledge`):
  actions the shared memory held for this screen before the run go after new
  ones, and concurrent workers of the run claim (state, action) pairs in Redis
  before acting, so each takes what no other took; a worker repeats another's
  actions only when everything it can reach was taken.

Policies are deterministic given their seed, what they observe and the claims.
"""
from __future__ import annotations

import random
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Protocol

from appmem.formats.ui import Action, ActionType
from appmem.workers.candidates import ActionCandidate, Seen

POLICIES = ("frontier", "dfs", "random")


class Knowledge(Protocol):
    """What the rest of the fleet did, for a greedy policy."""

    def claimed(self, state_id: str) -> set[str]:
        """Action signatures other workers of the run took (or are taking) from this state."""

    def claim(self, state_id: str, signature: str) -> bool:
        """Announce that this worker takes the action now; False when another one already did."""

    def acted(self, screen_id: str) -> dict[str, int]:
        """Action signature → observations on this screen in the shared memory (any trace, any device)."""


class NoKnowledge:
    """A worker alone: DroidBot's view of the world."""

    def claimed(self, state_id: str) -> set[str]:
        return set()

    def claim(self, state_id: str, signature: str) -> bool:
        return True

    def acted(self, screen_id: str) -> dict[str, int]:
        return {}


class Policy(Protocol):
    name: str

    def choose(self, seen: Seen, options: list[ActionCandidate]) -> ActionCandidate | None:
        """The next action, or None to restart the app."""

    def record(self, source: Seen, action: Action, target: Seen) -> None:
        """What happened after the chosen action."""


@dataclass
class RandomPolicy:
    seed: int
    name: str = "random"
    rng: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def choose(self, seen: Seen, options: list[ActionCandidate]) -> ActionCandidate | None:
        return self.rng.choice(options)

    def record(self, source: Seen, action: Action, target: Seen) -> None:
        pass


@dataclass
class GreedyPolicy:
    """DroidBot's greedy DFS over concrete states, with the fleet's knowledge when given one:
    actions no worker of the run took yet go first (then the nearest state that has some),
    and among those, the ones the shared memory never saw on this screen; only when the
    run has taken everything reachable does a worker repeat what others did.

    Refinements over DroidBot, for what the twins showed it wastes its actions on:
    - no-op prediction: an action that changed nothing every time this worker took it on
      a screen (abstract: another concrete state of the same layout) is predicted to
      change nothing there again; so is, on a screen where it was never tried, an action
      whose kind (`features`: action, class, resource id, label) never changed anything on
      any screen in several tries; such actions wait until no other untried action is
      reachable (they are still taken then), or until the nearest one is more than FAR
      actions away (one action here for a chance of a new state beats a long walk);
    - taking again what keeps finding: an action every try of which from this state found a
      state new to this worker (each outcome seen once, so by Good–Turing the chance that
      the next one is unseen too is estimated at one) is taken again from this state once
      its untried actions that are not predicted no-ops are done, before walking anywhere;
      the first try that leads somewhere known ends it. A list entry or a dialog button
      whose outcome depends on what the app did before (a file the app re-saves, a CANCEL
      that returns to where the app came from) shows a new state each time;
    - re-trying as well as restarting: apps are not deterministic (a relaunch, or one
      action of one state, may show another state each time), so when nothing untried is
      reachable the policy takes turns between restarting the app and taking again the
      effective action of this state taken the fewest times (its next outcome may be new)."""

    name: str
    seed: int
    knowledge: Knowledge
    rng: random.Random = field(init=False)
    taken: dict[str, Counter[str]] = field(default_factory=dict)  # state → signature → times taken
    options: dict[str, list[str]] = field(default_factory=dict)  # state → candidate signatures, in order
    utg: dict[str, dict[str, str]] = field(default_factory=dict)  # state → signature → last target state
    fruitful: set[tuple[str, str]] = field(default_factory=set)  # (state, signature): every try found a new state
    known: set[str] = field(default_factory=set)  # states this worker has seen
    screens: dict[str, str] = field(default_factory=dict)  # state → screen id
    noops: dict[tuple[str, str], list[int]] = field(default_factory=dict)  # (screen, signature) → [no-ops, moves]
    restarts: int = 0  # times this policy had nothing left and asked for a restart
    kinds: dict[str, dict[str, tuple[tuple, ...]]] = field(default_factory=dict)  # state → signature → feature keys
    effects: dict[tuple, list[int]] = field(default_factory=dict)  # feature key → [no-ops, moves]

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def predicted_noop(self, state_id: str, signature: str) -> bool:
        """Whether the action is expected to change nothing on this state: it never did on this
        state's screen, in at least one try; or, untried on this screen, its kind of action
        (`features`) never did on any screen, in NOOP_EVIDENCE tries."""
        still, moved = self.noops.get((self.screens.get(state_id, ""), signature), (0, 0))
        if still or moved:
            return moved == 0
        for level, feature in enumerate(self.kinds.get(state_id, {}).get(signature, ())):
            still, moved = self.effects.get(feature, (0, 0))
            if moved:
                return False
            if still >= NOOP_EVIDENCE[level]:
                return True
        return False

    def untried(self, state_id: str, fresh_only: bool, noops: bool) -> list[str]:
        """Actions of a state this worker has not taken; `fresh_only`: nor anyone else in the run;
        `noops`: also those predicted to change nothing."""
        own = self.taken.get(state_id, Counter())
        others = self.knowledge.claimed(state_id) if fresh_only else set()
        return [s for s in self.options.get(state_id, []) if s not in own and s not in others
                and (noops or not self.predicted_noop(state_id, s))]

    def choose(self, seen: Seen, options: list[ActionCandidate]) -> ActionCandidate | None:
        node = seen.state.state_id
        by_sig = {c.signature: c for c in options}
        self.screens[node] = seen.screen.id
        if node not in self.options:
            self.options[node] = self.ordered(options, self.knowledge.acted(seen.screen.id))
            self.kinds[node] = features(seen, options)
        for fresh_only, noops in ((True, False), (True, True), (False, False), (False, True)):
            here = [s for s in self.untried(node, fresh_only, noops) if s in by_sig]
            if fresh_only:
                for signature in here:
                    if self.knowledge.claim(node, signature):
                        return by_sig[signature]
            elif here:
                return by_sig[here[0]]
            if not noops:
                again = [s for s in self.options.get(node, []) if s in by_sig and (node, s) in self.fruitful]
                if again:
                    return by_sig[again[0]]
            step, hops = self.navigate(node, fresh_only, noops)
            if step in by_sig:
                if not noops and hops > FAR:
                    local = self.local_noop(node, fresh_only, by_sig)
                    if local is not None:
                        return local
                return by_sig[step]
        return self.retry(node, by_sig)

    def retry(self, node: str, by_sig: dict[str, ActionCandidate]) -> ActionCandidate | None:
        """The effective action of this state taken the fewest times (first in order on ties),
        unless restarts are due (they took fewer turns than re-tries of it): then None."""
        taken = self.taken.get(node, Counter())
        moved = [s for s in self.options.get(node, []) if s in by_sig and self.utg.get(node, {}).get(s, node) != node]
        again = min(moved, key=lambda s: taken[s]) if moved else None
        if again is None or taken[again] > self.restarts:
            self.restarts += 1
            return None
        return by_sig[again]

    def ordered(self, options: list[ActionCandidate], acted: dict[str, int]) -> list[str]:
        """DroidBot's order: taps on clickable views, scrolls, long taps, typing, taps on
        other leaf views, BACK, each kind in view order. With the fleet's knowledge, what
        the shared memory never saw on this screen goes first."""
        groups: dict[tuple[int, int], list[str]] = {}
        for c in options:
            kind = c.group
            fresh = 1 if c.signature in acted else 0
            groups.setdefault((fresh, kind) if kind < 6 else (2, kind), []).append(c.signature)
        out: list[str] = []
        for slot in sorted(groups):
            out += groups[slot]
        return out

    def navigate(self, start: str, fresh_only: bool, noops: bool) -> tuple[str | None, int]:
        """First action of a shortest known path to a state with an untried action, and its length."""
        seen_nodes = {start}
        queue: deque[tuple[str, str | None, int]] = deque([(start, None, 0)])
        while queue:
            node, first, hops = queue.popleft()
            if node != start and self.untried(node, fresh_only, noops):
                return first, hops
            for signature, target in self.utg.get(node, {}).items():
                if target not in seen_nodes:
                    seen_nodes.add(target)
                    queue.append((target, first or signature, hops + 1))
        return None, 0

    def local_noop(self, node: str, fresh_only: bool, by_sig: dict[str, ActionCandidate]) -> ActionCandidate | None:
        """An untried action of this state predicted to change nothing: one action for a chance of a
        new state, rather than a long walk to an untried one elsewhere."""
        for signature in self.untried(node, fresh_only, True):
            if signature in by_sig and (not fresh_only or self.knowledge.claim(node, signature)):
                return by_sig[signature]
        return None

    def record(self, source: Seen, action: Action, target: Seen) -> None:
        node, signature = source.state.state_id, action.signature
        self.taken.setdefault(node, Counter())[signature] += 1
        self.utg.setdefault(node, {})[signature] = target.state.state_id
        new = target.state.state_id not in self.known | {node}
        if new and (self.taken[node][signature] == 1 or (node, signature) in self.fruitful):
            self.fruitful.add((node, signature))
        else:
            self.fruitful.discard((node, signature))
        self.known |= {node, target.state.state_id}
        outcome = self.noops.setdefault((source.screen.id, signature), [0, 0])
        outcome[0 if target.state.state_id == node else 1] += 1
        for feature in self.kinds.get(node, {}).get(signature, ()):
            self.effects.setdefault(feature, [0, 0])[0 if target.state.state_id == node else 1] += 1


NOOP_EVIDENCE = (3, 5)  # no-ops without a move, per feature level (most specific first), to predict one
FAR = 1  # a walk longer than this to an untried action: try this state's predicted no-ops first


def features(seen: Seen, options: list[ActionCandidate]) -> dict[str, tuple[tuple, ...]]:
    """What kind of action each option is, most specific first: (action, DroidBot group, class,
    id, label), then (action, DroidBot group, class, id). A kind that never changed anything
    in several tries (NOOP_EVIDENCE, per level) on any screen is predicted to change nothing
    on others too, unless this screen's own tries say otherwise."""
    by_key = {e.key: e for e in seen.elements.values()}
    out: dict[str, tuple[tuple, ...]] = {}
    for c in options:
        element = by_key.get(c.action.element_key)
        if element is None or c.action.type == ActionType.BACK:
            continue
        kind = (c.action.type.value, c.action.text, c.group)
        cls = element.class_name.rsplit(".", 1)[-1]
        out[c.signature] = ((*kind, cls, element.resource_id, element.text or element.content_desc),
                            (*kind, cls, element.resource_id))
    return out


def make_policy(name: str, seed: int, fleet: Knowledge) -> Policy:
    if name == "random":
        return RandomPolicy(seed)
    if name == "dfs":
        return GreedyPolicy("dfs", seed, NoKnowledge())
    if name == "frontier":
        return GreedyPolicy("frontier", seed, fleet)
    raise ValueError(f"unknown policy {name!r} (choose from {', '.join(POLICIES)})")
