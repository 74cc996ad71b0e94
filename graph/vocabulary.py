"""The vocabulary of UI elements, defined once: word lists, the label, the role, what "risky" means.

Every package reads an element through these functions (ingest and the
explorer through `graph.model.Element`, the summarizer, the planner), so they
agree on what an element is called, what acting on it means and whether an
agent must confirm it:

- `label_of`: the element's human label — its text, else its content
  description, else the words of its resource id; an input's typed content is
  never its label (only a hint-like text is).
- `role_of`: input | toggle | scroll | long_tap | tap, from flags and class.
- `is_risky`: acting on it deletes, sends, calls, pays or changes something
  irreversibly: a word or phrase of `RISKY_WORDS` (plus the deployment's
  APPMEM_RISKY_WORDS) appears as whole words, inflections included
  ("delete", "deleted", "deleting"; not "Information" for "format").
  The summarizer flags such elements for confirmation; the explorer never
  touches those matching APPMEM_RISKY_WORDS (its smaller, stricter list).
- `clip`: UI text bounded for a model's field, so no app content is too long.

The functions take any object with `class_name`, `resource_id`, `text`,
`content_desc` and `flags` (a graph.model.Element, a row). No list here is
drawn from benchmark task texts.
"""
from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import Any, Container, Iterable, Protocol, Sequence

from appmem.formats import privacy
from appmem.formats.autodroid_html import SWITCH_RE


class Labelled(Protocol):
    class_name: str
    resource_id: str
    text: str
    content_desc: str
    flags: Sequence[str]


class Identified(Labelled, Protocol):
    id: str


# -- word lists ----------------------------------------------------------------------------------
# The privacy scrubber's placeholders (formats/privacy.py), read as words.
PLACEHOLDER_WORDS = {privacy.ITEM: "an item", privacy.EMAIL: "an e-mail address", privacy.PHONE: "a phone number",
                     privacy.NUMBER: "a number", privacy.URL: "a link", privacy.CARD: "a card number",
                     privacy.IP: "an address", privacy.SECRET: "a password"}
# Parts of resource ids that name the kind of view, not what it does.
GENERIC_IDS = {"id", "btn", "button", "text", "txt", "view", "image", "img", "icon", "layout", "item", "title",
               "container", "content", "root", "main", "action", "menu", "android", "widget", "label", "value",
               "holder", "wrapper", "frame", "row", "et", "tv", "iv", "ib", "fab", "ll", "rl"}
RISKY_WORDS = ("delete", "remove", "erase", "wipe", "clear", "reset", "uninstall", "format", "send", "call",
               "dial", "pay", "purchase", "buy", "order", "transfer", "discard", "empty trash", "sign out",
               "log out", "logout", "block", "unsubscribe", "restore", "overwrite", "factory")
BACK_WORDS = {"go back", "back", "navigate up", "close", "cancel", "no", "dismiss", "not now", "later", "skip"}
# Buttons that only carry out what their screen was opened for: their meaning is the screen's purpose.
CONFIRM_WORDS = {"ok", "yes", "save", "done", "apply", "confirm", "allow", "accept", "continue", "got it",
                 "proceed", "set", "select", "submit", "finish", "next", "start"}
# Buttons that name an action and also carry out their dialog's purpose ("Delete" in "Delete note?").
ACTION_WORDS = {"delete", "remove", "send", "create", "add", "rename", "print", "export", "import", "move",
                "copy", "update", "overwrite", "share", "call", "clear", "reset", "discard"}
HINT = re.compile(r"(…|\.\.\.)$|^(insert|enter|type|search|add|write|find|label|name|title|note|message)\b", re.I)
INFLECTIONS = r"(?:s|es|d|ed|ing)?"
# Characters no model, JSON encoder or database driver should get: controls, lone surrogates, noncharacters.
# A launcher (home screen) package: its last name segment is `launcher`, `launcher3`, ...
LAUNCHER = re.compile(r"(?:^|\.)launcher\d*$")
UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")
# The patterns of the label functions, compiled once.
LINE_BREAK = re.compile(r"\s*(<br>|\n)\s*")
SPACES = re.compile(r"\s+")
CAMEL = re.compile(r"([a-z0-9])([A-Z])")
ID_SEPARATORS = re.compile(r"[\W_]+")
WORD = re.compile(r"[a-z0-9]+")
# The label functions are pure (str -> str) and an app repeats its texts on every screen: each distinct
# input is worked out once per process, up to this many per function (UI texts are short).
LABEL_CACHE = 1 << 15


# -- text ----------------------------------------------------------------------------------------
def clean(text: str) -> str:
    """`text` without the characters that break encoders, hashes and drivers (controls, lone surrogates)."""
    return UNSAFE.sub("", text)


def clean_all(value: Any) -> Any:
    """Every string in a loaded JSON / YAML document `clean`ed (keys too): formats call it at the edge."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, list):
        return [clean_all(v) for v in value]
    if isinstance(value, dict):
        return {clean_all(k): clean_all(v) for k, v in value.items()}
    return value


def clip(text: str, limit: int) -> str:
    """`text` cleaned and cut to at most `limit` characters, at a word boundary where one is near, with '…'."""
    text = clean(text)
    if len(text) <= limit:
        return text
    cut = text[:limit - 1]
    space = cut.rfind(" ")
    if space >= limit * 2 // 3:
        cut = cut[:space]
    return cut.rstrip(" ,;:/") + "…"


@lru_cache(maxsize=LABEL_CACHE)
def humanize(raw: str) -> str:
    """UI text / ids → plain words: `<br>` and newlines join as ' / ', placeholders read as words."""
    text = LINE_BREAK.sub(" / ", clean(raw).strip())
    if "<" in text:  # every placeholder is `<NAME>`
        for placeholder, words in PLACEHOLDER_WORDS.items():
            text = text.replace(placeholder, words)
    text = SPACES.sub(" ", text)
    return text.strip(" /")


@lru_cache(maxsize=LABEL_CACHE)
def id_words(resource_id: str) -> str:
    """`com.app:id/btnDeleteAll_events` → `delete all events` (generic parts dropped)."""
    name = resource_id.rsplit("/", 1)[-1]
    name = CAMEL.sub(r"\1 \2", name)
    words = [w.lower() for w in ID_SEPARATORS.split(name) if w]
    return " ".join(w for w in words if w not in GENERIC_IDS and not w.isdigit())


@lru_cache(maxsize=LABEL_CACHE)
def head(label: str) -> str:
    """The name part of a label that shows a value too: 'Reminder sound / Default (Pixie)' → 'Reminder sound',
    'Use 24-hour time format OFF' → 'Use 24-hour time format'."""
    return SWITCH_RE.sub("", label.split(" / ", 1)[0]).strip()


@lru_cache(maxsize=LABEL_CACHE)
def snake(text: str) -> str:
    """A snake_case name of at most five words ('value' when `text` has none)."""
    words = WORD.findall(text.lower())
    return "_".join(words[:5]) or "value"


# -- elements ------------------------------------------------------------------------------------
def without_package(task: str, package: str) -> str:
    """The task without the package it names outright ("tap 'X' in org.example.app" → "tap 'X'"):
    a package name says where, not what. The task itself when that would leave nothing."""
    rest = re.sub(rf"\s*(?:\b(?:in|on|of|using|with)\s+)?(?<![\w.]){re.escape(package)}(?![\w.])", "", task,
                  flags=re.I).strip()
    return rest or task


def is_launcher(package: str) -> bool:
    """Whether the package is a launcher (home screen): the way into every app."""
    return LAUNCHER.search(package or "") is not None


def role_of(e: Labelled) -> str:
    """input | toggle | scroll | long_tap | tap."""
    return _role(e.class_name, tuple(e.flags))


@lru_cache(maxsize=LABEL_CACHE)
def _role(class_name: str, flag_list: tuple[str, ...]) -> str:
    cls = class_name.lower()
    flags = set(flag_list)
    if "editable" in flags or "edittext" in cls or cls.endswith("input") or "autocomplete" in cls:
        return "input"
    if "checkable" in flags or any(k in cls for k in ("checkbox", "switch", "radiobutton", "togglebutton",
                                                        "checkedtextview")):
        return "toggle"
    if ("scrollable" in flags and "clickable" not in flags) or any(
            k in cls for k in ("scroller", "scrollview", "recyclerview", "listview")):
        return "scroll"
    if "long_clickable" in flags and "clickable" not in flags:
        return "long_tap"
    return "tap"


def label_of(e: Labelled) -> str:
    """The element's human label: its text, else its content description, else
    its id's words. An input's text is what was typed there unless it reads
    like a hint ("Search…", "Insert text here"), so for inputs the description,
    the id and a hint-like text come first, and typed content is never a label."""
    return _label(role_of(e) == "input", e.text, e.content_desc, e.resource_id)


@lru_cache(maxsize=LABEL_CACHE)
def _label(is_input: bool, text: str, content_desc: str, resource_id: str) -> str:
    if is_input:
        shown = humanize(text)
        candidates = (humanize(content_desc), id_words(resource_id), shown if HINT.search(shown) else "")
    else:
        candidates = (humanize(text), humanize(content_desc), id_words(resource_id))
    return next((c for c in candidates if c), "")


@cache
def _risky_pattern(words: tuple[str, ...]) -> re.Pattern[str] | None:
    alternatives = []
    for word in words:
        w = re.escape(word.lower())
        # "delete" → "deleting": a final e drops before -ing
        alternatives.append(f"{w}{INFLECTIONS}" + (f"|{re.escape(word.lower()[:-1])}ing" if word.endswith("e") else ""))
    return re.compile(rf"(?<!\w)(?:{'|'.join(alternatives)})(?!\w)") if alternatives else None


def is_risky(*texts: str, words: tuple[str, ...] = RISKY_WORDS, extra: tuple[str, ...] = ()) -> bool:
    """Whether any of `texts` holds a word or phrase of `words` + `extra` as whole words (inflected or not)."""
    pattern = _risky_pattern(tuple(dict.fromkeys((*words, *extra))))
    hay = " ".join(clean(t).lower() for t in texts if t)
    return pattern is not None and pattern.search(hay) is not None


def confirm_needed(elements: Iterable[Identified], stays: Container[str] = ()) -> bool:
    """Whether the memory shows that a change made on a screen of `elements` holds only with its confirm: it
    has a field (a form), a choice there was seen to leave it open (`stays`: the ids of the elements seen
    acting without leaving it), or it offers a dismiss (Cancel) that leaves it unchanged. A list of choices
    with none of these closes on the choice (a single-choice dialog): its confirm finishes nothing."""
    return any(role_of(e) == "input" or (role_of(e) == "toggle" and e.id in stays)
               or (role_of(e) == "tap" and label_of(e).lower() in BACK_WORDS) for e in elements)
