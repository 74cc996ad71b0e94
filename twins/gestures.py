"""How a twin device reads a physical gesture: which views a touch acts on, what a swipe is, which
key a key code names. Pure functions of the placed views (twins/app.py); twins/device.py applies them.

- tap: DroidBot taps the centre of a view, so the recorded tap at a point is
  the one on the view, among those under the point with a recorded action of
  that kind from the current state, whose centre is nearest (then the smaller);
  views with the very same bounds are one target, their recorded targets
  pooled. Without one, the deepest interactive view under the point is the
  element (an action the recording never made: the screen stays).
- swipe: a move beyond the touch slop is a SCROLL of the scrollable view under
  the start point, named like DroidBot names it (finger up = DOWN, finger left =
  RIGHT); a still swipe of 500 ms or more is a LONG_TAP, a shorter one a tap.
"""
from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from appmem.formats.ui import ActionType
from appmem.twins.app import PlacedView

TOUCH_SLOP = 10  # px a swipe may move and still be a tap
LONG_PRESS_MS = 500
KEY_NAMES = {"KEYCODE_BACK": "BACK", "4": "BACK", "BACK": "BACK",
             "KEYCODE_HOME": "HOME", "3": "HOME", "HOME": "HOME",
             "KEYCODE_ENTER": "ENTER", "66": "ENTER", "ENTER": "ENTER"}


def is_still(dx: int, dy: int) -> bool:
    """A swipe that moved no further than the touch slop: a press, not a scroll."""
    return abs(dx) <= TOUCH_SLOP and abs(dy) <= TOUCH_SLOP


def press_kind(duration_ms: int) -> ActionType:
    """A still press: a LONG_TAP when held long enough, else a TAP."""
    return ActionType.LONG_TAP if duration_ms >= LONG_PRESS_MS else ActionType.TAP


def scroll_direction(dx: int, dy: int) -> str:
    """A swipe's SCROLL direction as DroidBot names it (finger up = DOWN, finger left = RIGHT)."""
    if abs(dy) >= abs(dx):
        return "DOWN" if dy < 0 else "UP"
    return "RIGHT" if dx < 0 else "LEFT"


def key_name(code: str) -> str:
    """BACK, HOME or ENTER for a key event by name (KEYCODE_BACK, BACK) or number (4); "" for the others."""
    return KEY_NAMES.get(code.upper(), "")


def views_hit(placed: Sequence[PlacedView], acted: Collection[str], x: int, y: int,
              fallback: Callable[[PlacedView], bool]) -> list[PlacedView]:
    """The views an action at (x, y) acts on: of the views under the point whose key is in `acted`
    (recorded inputs of that kind), those whose centre is nearest to it (then the smallest; all with
    those very bounds), else the deepest view passing `fallback`; [] when none."""
    under = [pv for pv in placed if pv.view.bounds.contains(x, y)]
    recorded = [pv for pv in under if pv.key in acted]
    if recorded:
        def rank(pv: PlacedView) -> tuple[int, int]:
            cx, cy = pv.view.bounds.center
            return (cx - x) ** 2 + (cy - y) ** 2, pv.view.bounds.area
        best = min(recorded, key=rank)
        return [pv for pv in recorded if pv.view.bounds == best.view.bounds]
    deepest: PlacedView | None = None
    for pv in under:
        if fallback(pv) and (deepest is None or pv.depth >= deepest.depth):
            deepest = pv
    return [deepest] if deepest else []
