"""A task's text → what it names: values to type, items to select, the wanted state of toggles, its words.

Generic UI vocabulary only (quotes, "named/called/titled", "from X to Y",
numbers, phone numbers, times, percentages, sizes, on/off verbs); nothing is
drawn from any benchmark's task texts. A value is typed only where a screen has
a field it fits (agent/screenwork.py); the same words also name options.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from appmem.planconfig import DEFAULT, PlannerConfig
from appmem.semantic.lexical import STOPWORDS, stem

# An opening quote follows a non-word character and a closing one precedes it: "Bob's" opens nothing.
QUOTED = re.compile(r"""(?<!\w)["“'‘]([^"“”'‘’\n]{1,200}?)["”'’](?!\w)""")
FROM_TO = re.compile(r"""\bfrom\s+(["“'‘][^"”'’]+["”'’]|\S+)\s+(?:to|into|with)\s+(["“'‘][^"”'’]+["”'’]|[^,;]+?)\s*(?:[,.;]|$| and | then )""",
                     re.I)
NAMED = re.compile(r"""\b(?:named|called|titled|entitled|as|to)\s+(["“'‘][^"”'’]+["”'’]|[A-Z][\w.:-]*(?:\s+[A-Z][\w.-]*)*)""")
PHONE = re.compile(r"(?<![\w:.])\+?\d[\d\s().-]{5,}\d(?![\w:])")
TIME = re.compile(r"\b\d{1,2}:\d{2}(?:\s?[ap]\.?m\.?)?(?!\d)", re.I)
PERCENT = re.compile(r"\b\d+(?:[.,]\d+)?\s?%")
SIZE = re.compile(r"\b\d+(?:[.,]\d+)?\s?(?:[kmgt]i?b|bytes?|kbps|mbps|px|dp|pt|hz|khz|mp)\b", re.I)
NUMBER = re.compile(r"(?<![\w:.])\d+(?:[.,:]\d+)?(?![\w:%])")
FILE = re.compile(r"\b[\w-]+\.[A-Za-z][A-Za-z0-9]{1,4}\b")
OFF = re.compile(r"\b(?:disable|deactivate|turn(?:ing)?\s+off|switch\s+off|uncheck|hide|stop|don'?t|do\s+not|never|"
                 r"no\s+longer|without)\b", re.I)
ON = re.compile(r"\b(?:enable|activate|turn(?:ing)?\s+on|switch\s+on|check|show|use|allow|always)\b", re.I)
WORD = re.compile(r"[a-z0-9%]+")
# A quote right after a verb of touching names the control itself ("tap 'Sort by'"), word for word;
# after anything else ("delete the note 'Diary'") it names an item or a value.
TOUCHED = re.compile(r"""\b(?:tap|click|press|touch|hit|select|choose)\s+(?:on\s+|the\s+)?["“'‘]([^"“”'‘’\n]{1,200}?)["”'’](?!\w)""",
                     re.I)


@dataclass(frozen=True)
class Value:
    text: str
    kind: str  # quoted | named | new | phone | number | time | percent | size | file


@dataclass
class ParsedTask:
    text: str
    values: list[Value] = field(default_factory=list)  # what may be typed, most explicit first
    old: list[str] = field(default_factory=list)  # the X of "from X to Y": the current value, not the goal
    entities: list[str] = field(default_factory=list)  # what may name a data item (a row of a list)
    labels: list[str] = field(default_factory=list)  # quoted after a verb of touching: a control's label
    want_on: bool | None = None  # the wanted state of a named toggle, when the task says
    words: list[str] = field(default_factory=list)  # lower-case words, old values left out
    cased: bool = False  # the app shows a quoted label in the task's very case: only that case names it
    app: frozenset[str] = frozenset()  # stems of the planned app's name: they say which app, not what to do in it
    # what a plan derives from the task on one screen, kept for its other candidates (agent/screenwork.py); each
    # plan parses its task afresh, and a copy (dataclasses.replace) starts with none
    memo: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def first(self, *kinds: str) -> Value | None:
        return next((v for v in self.values if v.kind in kinds), None)

    def quotes(self, text: str) -> bool:
        """The task quotes `text` after a verb of touching, word for word (spacing aside; case aside too
        unless `cased`: a button showing CLEAR is not the row 'clear' the task quotes)."""
        fold = (lambda t: t) if self.cased else str.lower
        return " ".join(fold(text).split()) in {" ".join(fold(quoted).split()) for quoted in self.labels}

    def says(self, text: str) -> bool:
        """The task quotes `text` after a verb of touching, or says its words (all, or all of the quote's, punctuation
        and case aside): the control a quote names when no label is the quote word for word ("Settings…")."""
        words = frozenset(re.findall(r"\w+", text.casefold()))  # any script: labels are not English only
        quoted = [q for q in (frozenset(re.findall(r"\w+", label.casefold())) for label in self.labels) if q]
        return self.quotes(text) or bool(words) and any(words <= q or q <= words for q in quoted)

    def in_app(self, packages: list[str]) -> "ParsedTask":
        """The task as planned in `packages`: the words of their names ("contacts" of
        com.example.contacts) are the app's, not a control's."""
        self.app = frozenset(stem(w) for p in packages for w in WORD.findall(p.lower()))
        return self

    def with_case_of(self, shown: Iterable[str]) -> "ParsedTask":
        """`cased` when the app shows (one of `shown`, its labels) a quoted label in the task's very case; `shown`
        is read only when the task quotes a label (most tasks quote none: an app's labels need not be read)."""
        quoted = {" ".join(q.split()) for q in self.labels}
        self.cased = bool(quoted) and any(" ".join(t.split()) in quoted for t in shown)
        return self


def _unquote(text: str) -> str:
    return text.strip().strip("\"“”'‘’").strip()


def parse_task(text: str, config: PlannerConfig = DEFAULT) -> ParsedTask:
    """What `text` names (rule `from_to` of `config`: "from X to Y" names X as the current value, Y as the new)."""
    task = ParsedTask(text=text)
    seen: set[str] = set()
    taken: list[tuple[int, int]] = []  # spans already read as a value: a part of one is not another

    def add(m: re.Match[str], group: int, kind: str) -> None:
        start, end = m.span(group)
        if any(start < e and s < end for s, e in taken):
            return
        taken.append((start, end))
        value = _unquote(m.group(group)).rstrip(".,;")
        digits = re.sub(r"\D", "", value)
        if kind in ("phone", "number") and len(digits) >= 7:
            kind = "phone"
        if value and value.lower() not in seen and value not in task.old:
            seen.add(value.lower())
            task.values.append(Value(value, kind))

    for m in FROM_TO.finditer(text) if config.from_to else ():  # "from X to Y": X now, Y wanted
        task.old.append(_unquote(m.group(1)))
        taken.append(m.span(1))
        add(m, 2, "new")
    for pattern, kind in ((QUOTED, "quoted"), (NAMED, "named"), (TIME, "time"), (PERCENT, "percent"),
                          (SIZE, "size"), (PHONE, "phone"), (FILE, "file"), (NUMBER, "number")):
        for m in pattern.finditer(text):
            add(m, 1 if pattern.groups else 0, kind)
    task.labels = [_unquote(m.group(1)) for m in TOUCHED.finditer(text)]
    touched = {label.lower() for label in task.labels}  # "tap 'Import'": a control's name, no text to type
    task.values = [v for v in task.values if v.kind != "quoted" or v.text.lower() not in touched]
    task.entities = [v.text for v in task.values if v.kind in ("quoted", "named", "time", "file")]
    off, on = OFF.search(text), ON.search(text)
    task.want_on = False if off else (True if on else None)
    lowered = text.lower()
    for old in task.old:
        lowered = lowered.replace(old.lower(), " ")
    task.words = WORD.findall(lowered)
    return task


@lru_cache(maxsize=65536)
def content_stems(text: str) -> tuple[str, ...]:
    """Stems of a label's content words (numbers kept: '30 minutes' is not '5 minutes'); a plan reads each label's
    many times."""
    return tuple(stem(w) for w in WORD.findall(text.lower()) if w not in STOPWORDS and (len(w) > 1 or w.isdigit()))


@lru_cache(maxsize=65536)
def alike(a: str, b: str) -> bool:
    """Two stems name the same thing: equal, one abbreviates the other ('min', 'minutes'), or they share
    a long beginning ('vibrate', 'vibration'). Numbers only when equal."""
    if a == b:
        return True
    if a.isdigit() or b.isdigit() or min(len(a), len(b)) < 3:
        return False
    return a.startswith(b) or b.startswith(a) or (len(a) >= 5 and len(b) >= 5 and a[:5] == b[:5])


def coverage(label: str, words: list[str]) -> float:
    """The share of a label's content words that the task says."""
    return _coverage(label, tuple(words))


@lru_cache(maxsize=65536)
def _coverage(label: str, words: tuple[str, ...]) -> float:
    stems = content_stems(label)
    if not stems:
        return 0.0
    task = {stem(w) for w in words}
    return sum(1 for s in stems if any(alike(s, t) for t in task)) / len(stems)


def position(label: str, words: list[str]) -> int:
    """Where the task first says a word of `label` (an index into `words`; len(words): nowhere)."""
    return _position(label, tuple(words))


@lru_cache(maxsize=65536)
def _position(label: str, words: tuple[str, ...]) -> int:
    stems = content_stems(label)
    return next((k for k, w in enumerate(words) if any(alike(stem(w), s) for s in stems)), len(words))


def stems_said(task_stems: set[str], text_stems: set[str]) -> float:
    """The share of the task's stems that `text_stems` say."""
    if not task_stems:
        return 0.0
    return sum(1 for t in task_stems if any(alike(t, s) for s in text_stems)) / len(task_stems)
