"""What the explorer may do on a screen (`candidates`), as DroidBot's `get_possible_input` does:
tap clickable/checkable views, scroll scrollable ones in four directions, long-tap long-clickable
ones, type into editable ones, tap every other enabled leaf view, then BACK; minus every element
whose label (its texts, and those of its descendants unless it is a scrolling container) holds a
risky word or phrase. `Seen`: one observation as the explorer and the policies see it."""
from __future__ import annotations

from dataclasses import dataclass

from appmem.graph import vocabulary
from appmem.formats.ui import Action, ActionType, Bounds, UIState
from appmem.graph.model import Element, Screen
from appmem.graph.screens import view_paths

SCROLL_DIRECTIONS = ("UP", "DOWN", "LEFT", "RIGHT")
INPUT_TEXT = "hello"


@dataclass(frozen=True)
class ActionCandidate:
    action: Action
    bounds: Bounds | None = None
    leaf: bool = False  # a tap on a non-interactive leaf view (DroidBot's last resort)
    group: int = 0  # DroidBot's kind order: clickable taps, scrolls, checkable taps, long taps, typing, leaf taps, BACK

    @property
    def signature(self) -> str:
        return self.action.signature


@dataclass
class Seen:
    """One observation as the explorer and the policies see it."""

    state: UIState
    screen: Screen
    elements: dict[int, Element]  # by view index


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


def leaf_keys(state: UIState) -> frozenset[str]:
    """Structural keys of enabled leaf views: DroidBot also touches those."""
    paths = view_paths(state.views)
    return frozenset(paths[v.index] for v in state.views
                     if v.visible and v.enabled and not v.children and v.index in paths)


def candidates(seen: Seen, risky_words: tuple[str, ...]) -> list[ActionCandidate]:
    """Everything the explorer may do on this state: the interactive views'
    actions in view order, then taps on the other leaf views, then BACK."""
    out: list[ActionCandidate] = []
    leaves: list[ActionCandidate] = []
    by_index = {v.index: v for v in seen.state.views}
    for index, element in sorted(seen.elements.items()):
        view = by_index[index]
        if not (view.visible and view.enabled) or element.bounds.area == 0:
            continue
        # the never-touch words, matched as everywhere (whole words, inflected or not)
        if vocabulary.is_risky(label_text(seen.state, index), words=risky_words):
            continue
        key, b = element.key, element.bounds
        if not view.interactive:
            leaves.append(ActionCandidate(Action(ActionType.TAP, key), b, leaf=True, group=5))
            continue
        if view.clickable or view.checkable:
            out.append(ActionCandidate(Action(ActionType.TAP, key), b, group=0 if view.clickable else 2))
        if view.long_clickable:
            out.append(ActionCandidate(Action(ActionType.LONG_TAP, key), b, group=3))
        if view.editable:
            out.append(ActionCandidate(Action(ActionType.INPUT, key, INPUT_TEXT), b, group=4))
        if view.scrollable:
            out += [ActionCandidate(Action(ActionType.SCROLL, key, d), b, group=1) for d in SCROLL_DIRECTIONS]
    return out + leaves + [ActionCandidate(Action(ActionType.BACK), group=6)]
