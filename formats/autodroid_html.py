"""AutoDroid's HTML-like screen descriptions → domain `UIState`s.

AutoDroid describes a screen as a flat list of elements, one per line:

    <p id=0>Calendar</p>
    <button id=1 text='Search'></button>
    <checkbox id=2 checked=True>Monthly view</checkbox>
    <input id=3>Title</input>
    <button id=4>Snooze time<br>10 minutes</button>
    <button id=5>go back</button>

`id` is the element's position on that screen; the `text` attribute is the
view's content description, the inner text its text (`<br>` joins the texts of
merged child views and is read as a newline). `go back` is not a view but the
BACK key. Values are kept verbatim: a quote inside a quoted value may be
escaped with a backslash (`\\'`), or left bare when it cannot end the value (it
ends it only when `>` or another attribute follows); every other backslash is
literal.

Screen identity comes from the HTML itself (see `structure_of`): the screen is
its *static* chrome — content descriptions, checkbox labels and the title —
while list items, dates, numbers and user content are left out.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from appmem.formats.ui import Bounds, stable_id, UIState, View, view_text

TAG_CLASSES = {
    "button": "android.widget.Button",
    "input": "android.widget.EditText",
    "checkbox": "android.widget.CheckBox",
    "p": "android.widget.TextView",
    "scroller": "android.widget.ScrollView",
}
ROOT_CLASS = "android.widget.FrameLayout"
STATIC_CLASS = "android.widget.LinearLayout"  # the screen's chrome: what its signature is made of
# Its content: values, settings rows, list items. The HTML cannot tell a settings row
# from a list item, so this is not a list class: the privacy scrubber would take
# static rows such as "Delete all events" for user data. Regex scrubbing still applies.
DYNAMIC_CLASS = "android.widget.LinearLayout"
BACK_TEXT = "go back"
STRUCTURE_VERSION = "autodroid-structure/1"
TITLE_MAX = 40  # a longer first <p> is a message, not a title
BUTTON_LABEL_MAX = 40
LABEL_KEEP = 40  # AutoDroid cuts some long labels (at 50 characters): compare their beginnings
ROW_MAX = 160  # pixels per stacked element row

OPEN_RE = re.compile(r"<(?P<tag>[A-Za-z]\w*)\s+id=(?P<id>\d+)")
ATTR_RE = re.compile(r"\s+(?P<name>\w+)=")
TAG_END_RE = re.compile(r"\s*>")
VALUE_END_RE = re.compile(r"\s*>|\s+\w+=")  # what may follow the closing quote of a value
BARE_VALUE_RE = re.compile(r"[^\s>]*")
BR_RE = re.compile(r"<br\s*/?>", re.I)
SPACE_RE = re.compile(r"\s+")
DATA_RE = re.compile(r"\d|@|^\S+\.[A-Za-z]\w{0,4}$")  # digits, e-mail addresses, file names
SWITCH_RE = re.compile(r"\s+(?:ON|OFF)$")


class HtmlSyntaxError(ValueError):
    """An AutoDroid state that cannot be read; the message says where."""


@dataclass(frozen=True)
class HtmlElement:
    """One element of an AutoDroid state, as written."""

    tag: str
    id: int
    attrs: dict[str, str]
    inner: str  # verbatim, `<br>` included
    source: str  # the element's verbatim markup

    @property
    def content_desc(self) -> str:
        return self.attrs.get("text", "")

    @property
    def text(self) -> str:
        return BR_RE.sub("\n", self.inner)

    @property
    def checked(self) -> bool:
        return self.attrs.get("checked", "").lower() == "true"

    @property
    def is_back(self) -> bool:
        """AutoDroid's pseudo-button for the BACK key."""
        return self.tag == "button" and self.inner.strip() == BACK_TEXT and not self.content_desc


def _quoted(html: str, pos: int) -> tuple[str, int]:
    """The quoted value starting at `pos` → (value, position after the closing quote)."""
    quote = html[pos]
    out: list[str] = []
    i = pos + 1
    while i < len(html):
        c = html[i]
        if c == "\\" and html.startswith(quote, i + 1) and not VALUE_END_RE.match(html, i + 2):
            out.append(quote)
            i += 2
            continue
        if c == quote and VALUE_END_RE.match(html, i + 1):
            return "".join(out), i + 1
        out.append(c)
        i += 1
    raise HtmlSyntaxError(f"unterminated quoted value at offset {pos}")


def _attributes(html: str, pos: int, eid: int) -> tuple[dict[str, str], int]:
    """The attributes after `<tag id=N` → (attributes, position after `>`)."""
    attrs: dict[str, str] = {}
    while True:
        if m := TAG_END_RE.match(html, pos):
            return attrs, m.end()
        m = ATTR_RE.match(html, pos)
        if not m:
            raise HtmlSyntaxError(f"element id={eid}: malformed attribute at offset {pos}: {html[pos:pos + 40]!r}")
        name, pos = m.group("name"), m.end()
        if html.startswith(("'", '"'), pos):
            value, pos = _quoted(html, pos)
        else:
            bare = BARE_VALUE_RE.match(html, pos)
            assert bare is not None  # the pattern matches the empty string
            value, pos = bare.group(), bare.end()
        if name in attrs:
            raise HtmlSyntaxError(f"element id={eid}: attribute {name!r} given twice")
        attrs[name] = value


def parse_html(html: str) -> list[HtmlElement]:
    """An AutoDroid state → its elements in document order (the back button included)."""
    out: list[HtmlElement] = []
    seen: set[int] = set()
    pos = 0
    while True:
        while pos < len(html) and html[pos].isspace():
            pos += 1
        if pos >= len(html):
            break
        m = OPEN_RE.match(html, pos)
        if not m:
            raise HtmlSyntaxError(f"expected '<tag id=N' at offset {pos}: {html[pos:pos + 40]!r}")
        tag, eid = m.group("tag"), int(m.group("id"))
        if tag not in TAG_CLASSES:
            raise HtmlSyntaxError(f"element id={eid}: unknown tag <{tag}>")
        if eid in seen:
            raise HtmlSyntaxError(f"element id={eid} appears twice")
        seen.add(eid)
        attrs, body = _attributes(html, m.end(), eid)
        close = f"</{tag}>"
        end = html.find(close, body)
        if end < 0:
            raise HtmlSyntaxError(f"element id={eid}: <{tag}> is not closed")
        pos = end + len(close)
        out.append(HtmlElement(tag, eid, attrs, html[body:end], html[m.start():pos]))
    if not out:
        raise HtmlSyntaxError("no elements")
    return out


def canonical_html(elements: list[HtmlElement]) -> str:
    """The state as written, one element per line: layout whitespace between elements is not content."""
    return "\n".join(e.source for e in elements)


def _static(text: str, max_len: int | None = None) -> str:
    """`text` as a static label, or "" when it looks like data (digits: dates,
    times, sizes, counts, numbers), an e-mail address or a file name, or, with
    `max_len`, is too long for a label."""
    label = SPACE_RE.sub(" ", text).strip()
    if not label or DATA_RE.search(label) or (max_len is not None and len(label) > max_len):
        return ""
    return label[:LABEL_KEEP]


def _is_title_position(elements: list[HtmlElement], k: int) -> bool:
    """A title is the screen's first element, or the second after an icon button (`Navigate up`)."""
    return k == 0 or (k == 1 and elements[0].tag == "button" and bool(elements[0].content_desc))


def structure_of(elements: list[HtmlElement]) -> tuple[str, frozenset[int]]:
    """The content-free structure of a state → (structure string, ids of its static elements).

    The rule: a screen is its chrome, in document order —
    - every content description (`text='…'`: toolbar icons, FABs, tabs), on any tag;
    - every checkbox label, without a trailing ON/OFF switch state (settings, radio options);
    - the title: a short `<p>` first on the screen (or second, after an icon button);
    - every `<scroller>`;
    and, only on a screen with none of these labels (a popup menu, a bare
    dialog), each button's text. A screen with no label at all is its sequence
    of tags, runs collapsed. Of a merged text only the first line counts (the
    next ones are values), of a long label its first 40 characters (AutoDroid
    cuts some). Labels with digits, e-mail addresses and file names are data and
    are dropped; so are inputs (hint or user content), other `<p>`s (messages,
    values, names in the content), buttons on anchored screens (list items:
    contacts, files, events, months), checked states and the go-back button.
    So a list screen merges whatever it lists, or whether it is empty, and a
    screen differs from another when its icons, switches, title or menu items do.
    """
    tokens: list[tuple[int, str]] = []
    for k, e in enumerate(elements):
        if e.is_back:
            continue
        if e.content_desc:
            if label := _static(e.content_desc):
                tokens.append((e.id, f"{e.tag}[desc={label}]"))
        elif e.tag == "checkbox":
            if label := _static(SWITCH_RE.sub("", _first_line(e.text))):
                tokens.append((e.id, f"checkbox[{label}]"))
        elif e.tag == "p" and _is_title_position(elements, k):
            if label := _static(e.text, TITLE_MAX):
                tokens.append((e.id, f"p[{label}]"))
        elif e.tag == "scroller":
            tokens.append((e.id, "scroller"))
    if not any(token != "scroller" for _, token in tokens):
        for e in elements:
            if e.tag == "button" and not e.is_back and not e.content_desc:
                if label := _static(_first_line(e.text), BUTTON_LABEL_MAX):
                    tokens.append((e.id, f"button[{label}]"))
        order = {e.id: k for k, e in enumerate(elements)}
        tokens.sort(key=lambda t: order[t[0]])
    shape = [] if tokens else _shape(elements)
    structure = "\n".join([STRUCTURE_VERSION, *(token for _, token in tokens), *shape])
    return structure, frozenset(eid for eid, _ in tokens)


def _shape(elements: list[HtmlElement]) -> list[str]:
    """The tags of a screen without a single static label, runs collapsed (`checkbox*`)."""
    out: list[str] = []
    for e in elements:
        if e.is_back:
            continue
        run = f"{e.tag}*"
        if not out or out[-1] != run:
            out.append(run)
    return out


def _first_line(text: str) -> str:
    """The main label of a merged text: its first line (the rest is a summary or a value)."""
    return text.strip().split("\n", 1)[0]


def state_from_elements(elements: list[HtmlElement], package: str, activity: str,
                        width: int = 1080, height: int = 1920) -> UIState:
    """A parsed AutoDroid state → a UIState of Views.

    The views hang under a synthetic root in two containers: the static
    elements (the ones the structure names) and the dynamic ones, each in
    document order. Element keys are structural paths that count same-class
    siblings, so this keeps the keys of a screen's chrome the same across its
    observations however many list items precede them. Elements are stacked
    top to bottom in document order, one row each, so every view has its own
    bounds and center. `state_id` hashes the canonical markup.
    """
    structure, static_ids = structure_of(elements)
    views_in = [e for e in elements if not e.is_back]
    root = max(e.id for e in elements) + 1
    static_box, dynamic_box = root + 1, root + 2
    screen = Bounds(0, 0, width, height)
    row = max(1, min(ROW_MAX, height // max(1, len(views_in))))
    views = [
        View(index=root, parent=-1, children=[static_box, dynamic_box], class_name=ROOT_CLASS,
             package=package, bounds=screen),
        View(index=static_box, parent=root, children=[e.id for e in views_in if e.id in static_ids],
             class_name=STATIC_CLASS, package=package, bounds=screen),
        View(index=dynamic_box, parent=root, children=[e.id for e in views_in if e.id not in static_ids],
             class_name=DYNAMIC_CLASS, package=package, bounds=screen),
    ]
    for k, e in enumerate(views_in):
        views.append(View(
            index=e.id,
            parent=static_box if e.id in static_ids else dynamic_box,
            children=[],
            class_name=TAG_CLASSES[e.tag],
            package=package,
            text=view_text(e.text),
            content_desc=view_text(e.content_desc),
            bounds=Bounds(0, k * row, width, (k + 1) * row),
            clickable=e.tag in ("button", "input", "checkbox"),
            checkable=e.tag == "checkbox",
            checked=e.tag == "checkbox" and e.checked,
            scrollable=e.tag == "scroller",
            editable=e.tag == "input",
            focusable=e.tag == "input",
        ))
    canonical = canonical_html(elements)
    return UIState(
        package=package,
        activity=activity,
        views=views,
        width=width,
        height=height,
        state_id=stable_id("autodroid-state", package, canonical),
        structure=structure,
    )
