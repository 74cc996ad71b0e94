"""The UI as a device reports it: a `UIState` is a tree of `View`s with their `Bounds`; an `Action`
is what is done on it. Every screen format (`formats/`) reads into these, the device driver acts with
them, and the domain model (`graph/model.py`) builds Screens, Elements and Traces on them."""
from __future__ import annotations

import hashlib
import unicodedata
from dataclasses import dataclass
from enum import Enum


def stable_id(*parts: object) -> str:
    """Deterministic id from parts: the same inputs always give the same id,
    which is what makes every write idempotent."""
    # surrogatepass: a lone surrogate in UI text (seen by the property test) gets an id, not a
    # crash; every valid string encodes exactly as before, so no id changes
    h = hashlib.sha1("\x1f".join("" if p is None else str(p) for p in parts).encode("utf-8", "surrogatepass"))
    return h.hexdigest()[:24]


class ActionType(str, Enum):
    TAP = "tap"
    LONG_TAP = "long_tap"
    INPUT = "input"
    SCROLL = "scroll"
    BACK = "back"
    HOME = "home"
    ENTER = "enter"
    START_APP = "start_app"
    STOP_APP = "stop_app"

    @property
    def needs_element(self) -> bool:
        return self in (ActionType.TAP, ActionType.LONG_TAP, ActionType.INPUT, ActionType.SCROLL)


# Android's coordinates are 32-bit ints (a view laid out nowhere reports [2147483647,2147483647]
# [-2147483648,-2147483648]). The graph stores 64-bit integers, so a hostile dump's [99999999999999999999,0][1,1]
# would pass every check at the API's edge and fail the worker's write: the readers of every format take bounds
# through `Bounds.read`, which refuses a coordinate outside this range as malformed bounds.
COORDINATES = range(-2**31, 2**31)


@dataclass(frozen=True)
class Bounds:
    left: int
    top: int
    right: int
    bottom: int

    @classmethod
    def read(cls, values: list[int]) -> "Bounds | None":
        """The bounds of four coordinates a dump reported; None when one is past Android's (COORDINATES)."""
        return cls(*values) if len(values) == 4 and all(v in COORDINATES for v in values) else None

    @property
    def center(self) -> tuple[int, int]:
        return ((self.left + self.right) // 2, (self.top + self.bottom) // 2)

    def contains(self, x: int, y: int) -> bool:
        return self.left <= x < self.right and self.top <= y < self.bottom

    @property
    def area(self) -> int:
        return max(0, self.right - self.left) * max(0, self.bottom - self.top)

    def as_list(self) -> list[int]:
        return [self.left, self.top, self.right, self.bottom]


# What memory keeps of a view's text or content description (every reader of a screen format, and the
# contribution path before scrubbing, takes texts through `view_text`). Texts reach LLM agents' prompts, so
# characters nobody sees are removed: control characters (but newline and tab) and invisible formatting
# ones (bidirectional overrides and isolates, zero-width spaces, word joiners, tag characters; the joiners
# ZWJ and ZWNJ that scripts and emoji need are kept). At most TEXT_MAX characters are kept
# (contract/run.py RunElement takes no longer one). Real UI labels are a few words; a longer text is
# content (a note, an article), so it is cut, not refused: an honest run whose dump shows one long text
# keeps its steps. The cut drops the word it falls in (and digits before it: a phone number split by the
# cut would escape the scrubber) and ends with CLIPPED.
TEXT_MAX = 5000
CLIPPED = "\u2026"
_CUT_TAIL = frozenset("+-().")
_KEPT_CONTROLS = frozenset("\n\t\u200c\u200d")


def clean_text(text: str) -> str:
    """`text` without control characters (but newline and tab) and invisible formatting characters."""
    if text.isprintable():
        return text
    return "".join(ch for ch in text if ch in _KEPT_CONTROLS or unicodedata.category(ch) not in ("Cc", "Cf"))


def clip_text(text: str) -> str:
    """`text` if it is at most TEXT_MAX characters, else its start, cut at a word, ending in CLIPPED."""
    if len(text) <= TEXT_MAX:
        return text
    cut = text[:TEXT_MAX - len(CLIPPED)]
    end = len(cut)
    if not text[end].isspace():  # the cut falls inside a word: drop the word
        while end and not cut[end - 1].isspace():
            end -= 1
    while end and (cut[end - 1].isdigit() or cut[end - 1].isspace() or cut[end - 1] in _CUT_TAIL):
        end -= 1
    return cut[:end] + CLIPPED


def view_text(text: str) -> str:
    """A view's text as memory keeps it: cleaned (`clean_text`), then clipped (`clip_text`)."""
    return clip_text(clean_text(text))


@dataclass
class View:
    """One node of a UI hierarchy as a device reports it (uiautomator / DroidBot)."""

    index: int
    parent: int  # -1 for the root
    children: list[int]
    class_name: str
    package: str = ""
    resource_id: str = ""
    text: str = ""
    content_desc: str = ""
    bounds: Bounds = Bounds(0, 0, 0, 0)
    visible: bool = True
    enabled: bool = True
    clickable: bool = False
    long_clickable: bool = False
    checkable: bool = False
    checked: bool = False
    scrollable: bool = False
    editable: bool = False
    focusable: bool = False
    focused: bool = False
    selected: bool = False
    password: bool = False

    @property
    def interactive(self) -> bool:
        return self.visible and self.enabled and (
            self.clickable or self.long_clickable or self.checkable or self.scrollable or self.editable
        )

    @property
    def short_class(self) -> str:
        return self.class_name.rsplit(".", 1)[-1]

    def flags(self) -> list[str]:
        names = ("clickable", "long_clickable", "checkable", "checked", "scrollable", "editable",
                 "enabled", "focused", "selected", "password")
        return [n for n in names if getattr(self, n)]


@dataclass
class UIState:
    """A concrete observation of a device screen: DroidBot's state."""

    package: str
    activity: str
    views: list[View]
    width: int = 1080
    height: int = 1920
    state_id: str = ""  # the concrete-state key (DroidBot's state_str or ours)
    observed_at: str = ""
    # Formats without resource ids (AutoDroid's HTML) give their own content-free
    # structure string; when set, it replaces the (class, resource id) set in the signature.
    structure: str = ""
    # What it shows, hashed (formats/uixml.variant_id) before personal data is scrubbed from it, so that the
    # graph's variants and a live dump's agree; "" until scrubbed (then variant_id of the views themselves)
    variant: str = ""

    @property
    def crashed(self) -> bool:
        """Android's crash or ANR dialog is on screen (its framework ids `android:id/aerr_*`)."""
        return any(v.resource_id.startswith("android:id/aerr_") for v in self.views if v.visible)


@dataclass
class Action:
    type: ActionType
    element_key: str = ""  # Element.key on the source screen, "" for element-free actions
    text: str = ""  # typed text (input), direction (scroll), package (start_app)

    @property
    def detail(self) -> str:
        """The part of `text` that tells actions apart: scroll direction, started or stopped
        package (typed text does not: the same field typed into is the same action)."""
        return self.text if self.type in (ActionType.SCROLL, ActionType.START_APP, ActionType.STOP_APP) else ""

    @property
    def signature(self) -> str:
        """What identifies the action on a screen, regardless of typed content."""
        return f"{self.type.value}|{self.element_key}|{self.detail}"
