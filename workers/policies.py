"""Exploration policies: which action to take on the screen the device shows.

`candidates` lists what can be done on a state (DroidBot's possible inputs:
tap clickable/checkable views, long-tap long-clickable ones, type into editable
ones, scroll scrollable ones in four directions, then BACK), minus every
element whose label contains a risky word.

- `random`: a uniformly random candidate.
- `dfs`: DroidBot's greedy depth-first search (UtgGreedySearchPolicy) over
  concrete states: an action not yet taken from this state first (BACK last);
  else the first step of a shortest known path to a state that still has one;
  else None (the explorer restarts the app, as DroidBot stops it).
- `frontier`: the same search over abstract screens, where "taken" means taken
  by anyone: the fleet's TRANSITION edges out of the screen in the shared graph,
  plus a Redis set of the current run that concurrent workers claim actions in
  before acting (`FleetKnowledge`). With nothing untaken reachable, it takes the
  least observed action instead of restarting.

Policies are deterministic given their seed and what they observe.
"""
from __future__ import annotations

import random
import re
from collections import deque
from dataclasses import dataclass, field
from typing import Protocol

from graph.model import Action, ActionType, Bounds, Element, Screen, UIState
from graph.screens import view_paths

SCROLL_DIRECTIONS = ("UP", "DOWN", "LEFT", "RIGHT")
INPUT_TEXT = "hello"
POLICIES = ("frontier", "dfs", "random")


@dataclass(frozen=True)
class Candidate:
    action: Action
    bounds: Bounds | None = None
    leaf: bool = False  # a tap on a non-interactive leaf view (DroidBot's last resort)

    @property
    def signature(self) -> str:
        return self.action.signature


@dataclass
class Seen:
    """One observation as the explorer and the policies see it."""

    state: UIState
    screen: Screen
    elements: dict[int, Element]  # by view index

    @property
    def in_app(self) -> bool:
        return self.screen.app_version != ""


def label_text(state: UIState, index: int) -> str:
    """The lowercase texts, descriptions and id names of a view, and of its
    descendants unless it is a scrolling container (a list is not its rows)."""
    by_index = {v.index: v for v in state.views}
    parts: list[str] = []
    stack = [index]
    while stack:
        view = by_index.get(stack.pop())
        if view is None:
            continue
        parts += [view.text, view.content_desc, view.resource_id.rsplit("/", 1)[-1].replace("_", " ")]
        if not view.scrollable:
            stack += view.children
    return " ".join(p for p in parts if p).lower()


def is_risky(state: UIState, index: int, risky_words: tuple[str, ...]) -> bool:
    """Whether the element's label holds a risky word or phrase (as whole words)."""
    label = label_text(state, index)
    return any(re.search(rf"(?<!\w){re.escape(word)}(?!\w)", label) for word in risky_words)


def leaf_keys(state: UIState) -> frozenset[str]:
    """Structural keys of enabled leaf views: DroidBot also touches those."""
    paths = view_paths(state.views)
    return frozenset(paths[v.index] for v in state.views
                     if v.visible and v.enabled and not v.children and v.index in paths)


def candidates(seen: Seen, risky_words: tuple[str, ...]) -> list[Candidate]:
    """Everything the explorer may do on this state: the interactive views'
    actions in view order, then taps on the other leaf views, then BACK."""
    out: list[Candidate] = []
    leaves: list[Candidate] = []
    by_index = {v.index: v for v in seen.state.views}
    for index, element in sorted(seen.elements.items()):
        view = by_index[index]
        if not (view.visible and view.enabled) or element.bounds.area == 0:
            continue
        if is_risky(seen.state, index, risky_words):
            continue
        key, b = element.key, element.bounds
        if not view.interactive:
            leaves.append(Candidate(Action(ActionType.TAP, key), b, leaf=True))
            continue
        if view.clickable or view.checkable:
            out.append(Candidate(Action(ActionType.TAP, key), b))
        if view.long_clickable:
            out.append(Candidate(Action(ActionType.LONG_TAP, key), b))
        if view.editable:
            out.append(Candidate(Action(ActionType.INPUT, key, INPUT_TEXT), b))
        if view.scrollable:
            out += [Candidate(Action(ActionType.SCROLL, key, d), b) for d in SCROLL_DIRECTIONS]
    return out + leaves + [Candidate(Action(ActionType.BACK))]


class Knowledge(Protocol):
    """What a greedy policy knows was already taken, beyond its own steps."""

    def tried(self, node: str) -> dict[str, int]:
        """Action signature → observations, for actions taken from this node by others."""

    def edges(self, node: str) -> dict[str, str]:
        """Action signature → target node, as others observed them."""

    def claim(self, node: str, signature: str) -> bool:
        """Announce that this worker takes the action now; False when another one already did."""


class NoKnowledge:
    """A worker alone: DroidBot's view of the world."""

    def tried(self, node: str) -> dict[str, int]:
        return {}

    def edges(self, node: str) -> dict[str, str]:
        return {}

    def claim(self, node: str, signature: str) -> bool:
        return True


class Policy(Protocol):
    name: str

    def choose(self, seen: Seen, options: list[Candidate]) -> Candidate | None:
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

    def choose(self, seen: Seen, options: list[Candidate]) -> Candidate | None:
        return self.rng.choice(options)

    def record(self, source: Seen, action: Action, target: Seen) -> None:
        pass


@dataclass
class GreedyPolicy:
    """DroidBot's greedy DFS over nodes: concrete states (`dfs`) or screens (`frontier`)."""

    name: str
    seed: int
    knowledge: Knowledge
    by_screen: bool
    fallback_least_observed: bool
    interactive_first: bool
    rng: random.Random = field(init=False)
    taken: dict[str, dict[str, int]] = field(default_factory=dict)  # node → signature → count (own)
    options: dict[str, list[str]] = field(default_factory=dict)  # node → candidate signatures
    utg: dict[str, dict[str, str]] = field(default_factory=dict)  # node → signature → target node

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def node(self, seen: Seen) -> str:
        return seen.screen.id if self.by_screen else seen.state.state_id

    def untried(self, node: str, signatures: list[str]) -> list[str]:
        own, fleet = self.taken.get(node, {}), self.knowledge.tried(node)
        return [s for s in signatures if s not in own and s not in fleet]

    def choose(self, seen: Seen, options: list[Candidate]) -> Candidate | None:
        node = self.node(seen)
        by_sig = {c.signature: c for c in options}
        order = self.ordered(options)
        known = self.options.setdefault(node, [])
        known += [s for s in order if s not in known]
        for signature, target in self.knowledge.edges(node).items():
            self.utg.setdefault(node, {}).setdefault(signature, target)
        for signature in self.untried(node, order):
            if self.knowledge.claim(node, signature):
                return by_sig[signature]
        step = self.navigate(node)
        if step is not None and step in by_sig:
            return by_sig[step]
        if not self.fallback_least_observed:
            return None
        counts = {s: self.taken.get(node, {}).get(s, 0) + self.knowledge.tried(node).get(s, 0) for s in order}
        least = min(counts.values())
        return by_sig[self.rng.choice([s for s in order if counts[s] == least])]

    def ordered(self, options: list[Candidate]) -> list[str]:
        """Shuffled, BACK last; `interactive_first` also puts leaf taps after the interactive views."""
        groups: list[list[str]] = [[], [], []]
        for c in options:
            group = 2 if c.action.type == ActionType.BACK else 1 if (c.leaf and self.interactive_first) else 0
            groups[group].append(c.signature)
        for group in groups[:2]:
            self.rng.shuffle(group)
        return [s for group in groups for s in group]

    def navigate(self, start: str) -> str | None:
        """First action of a shortest known path to a node with an untried action."""
        seen_nodes = {start}
        queue: deque[tuple[str, str | None]] = deque([(start, None)])
        while queue:
            node, first = queue.popleft()
            if node != start and self.untried(node, self.options.get(node, [])):
                return first
            for signature, target in self.utg.get(node, {}).items():
                if target not in seen_nodes:
                    seen_nodes.add(target)
                    queue.append((target, first or signature))
        return None

    def record(self, source: Seen, action: Action, target: Seen) -> None:
        node = self.node(source)
        counts = self.taken.setdefault(node, {})
        counts[action.signature] = counts.get(action.signature, 0) + 1
        self.utg.setdefault(node, {})[action.signature] = self.node(target)


def make_policy(name: str, seed: int, fleet: Knowledge) -> Policy:
    if name == "random":
        return RandomPolicy(seed)
    if name == "dfs":
        return GreedyPolicy("dfs", seed, NoKnowledge(), by_screen=False, fallback_least_observed=False,
                             interactive_first=False)
    if name == "frontier":
        return GreedyPolicy("frontier", seed, fleet, by_screen=True, fallback_least_observed=True,
                             interactive_first=True)
    raise ValueError(f"unknown policy {name!r} (choose from {', '.join(POLICIES)})")
