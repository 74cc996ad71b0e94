"""The privacy scrubber: what personal data is replaced before a state enters the shared memory.

Traces come from many people's devices. Every text that reaches the graph,
the summaries or the vectors passes through here first (the ingest pipeline
calls `scrub_state` on every UIState, and `scrub_text` on typed inputs and task
descriptions). What is replaced, by a typed placeholder:

- e-mail addresses → `<EMAIL>`
- URLs carrying a query string, a fragment, credentials or a token-like path
  segment → `<URL>` (a bare `https://example.org/help` is kept: it is UI text)
- IPv4 addresses → `<IP>`
- card-like numbers (13–19 digits passing the Luhn check) → `<CARD>`
- phone numbers (7–15 digits, optionally `+`, spaces, dots, dashes, parentheses) → `<PHONE>`
- any other run of 6 or more digits (codes, ids, account numbers) → `<NUMBER>`;
  in editable fields (what a user typed) runs of 3 or more digits too
- the text of password fields → `<SECRET>`
- texts and content descriptions of dynamic list items → `<ITEM>`: the rows of
  a list container (RecyclerView, ListView, GridView, …) that repeat with the
  same shape hold data (contacts, messages, file names). A row is a row layout
  (a view with children) or an item view with an app resource id; leaf views
  without ids are plain widgets, not adapter rows. A text that is the
  same in every row ("Mobile", "Call") is part of the row template and kept;
  so are framework menus and choice dialogs (rows whose texts use the
  `android:id/title` or `android:id/text1` ids of popup menus and
  single-choice dialogs), which list the app's own options.

What is kept: the view tree, classes, resource ids, bounds, flags, the
activity, the content-free structure string and state id, dates and times,
short numbers (counts, sizes, percentages, years), and every static label.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from appmem.formats.ui import UIState, View
from appmem.formats.uixml import variant_id

EMAIL = "<EMAIL>"
URL = "<URL>"
IP = "<IP>"
CARD = "<CARD>"
PHONE = "<PHONE>"
NUMBER = "<NUMBER>"
SECRET = "<SECRET>"
ITEM = "<ITEM>"
# Any placeholder above, as it appears in stored text.
PLACEHOLDER = re.compile(r"<[A-Z]+>")

_EMAIL_RE = re.compile(
    r"(?<![\w.%+-])[\w.%+-]+@[\w-]+(?:\.[\w-]+)*\.[^\W\d_]{2,}(?![\w-])", re.UNICODE)
# Every pattern here runs in time linear in its text (tests/ingest/test_privacy.py times them on hostile
# texts). A URL's scheme is taken as at most 32 characters before "://", from wherever they start (an unbounded
# scheme after a word boundary made this pattern scan to the end of the text from every word start:
# quadratic); a longer run of letters glued to a scheme is kept, the URL after it still replaced.
_URL_RE = re.compile(r"(?i)(?:[a-z][a-z0-9+.-]{0,31}://|\bwww\.)[^\s<>\"']+")
_IP_RE = re.compile(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?![\d.])")
# Dates look like phone numbers to a digit counter; valid ones are kept on purpose.
_DATE_RE = re.compile(r"(?<!\d[./-])(?<!\d)(\d{1,4})([./-])(\d{1,2})\2(\d{1,4})(?![./-]?\d)")
# A run of digits with the separators phone numbers and card numbers use.
_DIGITS_RE = re.compile(r"(?<!\w)\+?\(?\d(?:[\d\u00a0 ().-]*\d)?\)?(?!\w)")
_TOKEN_SEGMENT_RE = re.compile(r"^(?=.*\d)(?=.*[A-Za-z])[A-Za-z0-9_-]{16,}$")
_URL_TRAILING = ".,;:!?)]}"

LIST_CLASSES = ("RecyclerView", "ListView", "GridView", "ExpandableListView", "AbsListView")
MENU_TEXT_IDS = ("android:id/title", "android:id/text1")


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _url(match: re.Match[str]) -> str:
    whole = match.group(0)
    url = whole.rstrip(_URL_TRAILING)
    tail = whole[len(url):]
    rest = url.split("://", 1)[-1]
    host, _, path = rest.partition("/")
    risky = ("?" in url or "#" in url or "@" in host or "=" in path or ";" in path
             or any(_TOKEN_SEGMENT_RE.match(seg) for seg in path.split("/")))
    return (URL if risky else url) + tail


def _is_date(match: re.Match[str]) -> bool:
    first, _, middle, last = match.groups()
    if len(first) == 4 and len(last) <= 2:  # year-month-day
        year, month, day = first, middle, last
    elif len(first) <= 2 and len(last) in (2, 4):  # day-month-year or month-day-year
        year, month, day = last, middle, first
        if int(month) > 12:
            month, day = day, month
    else:
        return False
    return len(year) in (2, 4) and 1 <= int(month) <= 12 and 1 <= int(day) <= 31


def _digits(match: re.Match[str], min_run: int) -> str:
    raw = match.group(0)
    digits = re.sub(r"\D", "", raw)
    if 13 <= len(digits) <= 19 and _luhn(digits):
        return CARD
    groups = re.findall(r"\d+", raw)
    longest = max(len(g) for g in groups)
    if 7 <= len(digits) <= 15 and (longest >= 3 or len(groups) >= 4 or raw.startswith("+")):
        return PHONE
    if longest >= min_run:
        return NUMBER
    return raw


def _digit_runs(text: str, min_run: int) -> str:
    out, pos = [], 0
    for date in _DATE_RE.finditer(text):  # keep valid dates whole, scrub around them
        if not _is_date(date):
            continue
        out.append(_DIGITS_RE.sub(lambda m: _digits(m, min_run), text[pos:date.start()]))
        out.append(date.group(0))
        pos = date.end()
    out.append(_DIGITS_RE.sub(lambda m: _digits(m, min_run), text[pos:]))
    return "".join(out)


def scrub_text(text: str, *, typed: bool = False) -> str:
    """Replace personal data in one text by typed placeholders. `typed=True`
    marks what a user typed (an editable field's value, an input action):
    there runs of 3 or more digits are replaced too."""
    if not text:
        return text
    text = _URL_RE.sub(_url, text)
    text = _EMAIL_RE.sub(EMAIL, text)
    text = _IP_RE.sub(IP, text)
    return _digit_runs(text, 3 if typed else 6)


def _is_list(view: View) -> bool:
    short = view.short_class
    return short in LIST_CLASSES or short.endswith(LIST_CLASSES)


def _subtree(index: int, by_index: dict[int, View]) -> list[View]:
    out, todo = [], [index]
    while todo:
        view = by_index.get(todo.pop())
        if view is None:
            continue
        out.append(view)
        todo.extend(view.children)
    return out


def _shape(row: View, by_index: dict[int, View]) -> tuple[str, ...]:
    return tuple(sorted(f"{v.class_name}|{v.resource_id}" for v in _subtree(row.index, by_index)))


def dynamic_item_views(state: UIState) -> set[int]:
    """Indices of the views whose texts are dynamic list-item data (see module doc)."""
    by_index = {v.index: v for v in state.views}
    dynamic: set[int] = set()
    for container in state.views:
        if not _is_list(container):
            continue
        # A data row is a row layout (it has children) or an app-defined item view (it
        # has a resource id); bare leaf views without ids are plain widgets laid out in a
        # list (the AutoDroid importer's content box), not adapter rows.
        rows = [by_index[i] for i in container.children
                if i in by_index and (by_index[i].children or by_index[i].resource_id)]
        shapes = Counter(_shape(r, by_index) for r in rows)
        repeated = [r for r in rows if shapes[_shape(r, by_index)] >= 2]
        if not repeated:
            continue
        row_views = [_subtree(r.index, by_index) for r in repeated]
        if any(v.resource_id in MENU_TEXT_IDS for views in row_views for v in views):
            continue  # a framework menu or choice dialog: the app's own options
        # Texts every repeated row shows alike are the row template's labels.
        per_row = [{t for v in views for t in (v.text, v.content_desc) if t} for views in row_views]
        template = set.intersection(*per_row) if len(per_row) >= 2 else set()
        for views in row_views:
            for v in views:
                if (v.text and v.text not in template) or (v.content_desc and v.content_desc not in template):
                    dynamic.add(v.index)
    return dynamic


def _scrub_view(view: View, item: bool) -> View:
    def one(text: str) -> str:
        if not text:
            return text
        if view.password:
            return SECRET
        return ITEM if item else scrub_text(text, typed=view.editable)

    return replace(view, text=one(view.text), content_desc=one(view.content_desc), children=list(view.children))


def scrub_state(state: UIState) -> UIState:
    """A new UIState with personal data replaced; structure, classes, resource
    ids, bounds, flags and static labels are kept, the input is not changed. Its `variant` is the hash of
    what it showed before (formats/uixml.variant_id)."""
    items = dynamic_item_views(state)
    return replace(state, views=[_scrub_view(v, v.index in items) for v in state.views],
                   variant=variant_id(state))
