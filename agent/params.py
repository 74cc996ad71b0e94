"""The parameters of a task text, aligned against a stored task's text: what recall substitutes.

Two task texts have the same structure when they differ only in parameters:
the words that are left (verb, object, the rest, stemmed, function words
dropped) are the same, in the same order. A differing segment is a parameter
when it is a value (quoted text, a number, a time, a privacy placeholder such
as `<PHONE>`), a name (capitalised words inside the sentence: "Bob" → "Alice"),
or a choice the stored task acted on (an element label or typed input of its
steps, whole word: "China" → "United States", "yearly" → "daily").
"call Bob" and "call Alice" align with one parameter (Bob → Alice); "change
the alarm reminder" and "change the timer reminder" do not align: "alarm" is
not a parameter of the stored steps.

Values carry over into a step's typed text by the same rule at any depth:
"pic4.jpg" → "beach.jpg" turns the typed "pic4" into "beach", "1000:473" →
"800:600" the typed "1000" into "800".
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from appmem.formats.privacy import PLACEHOLDER
from appmem.semantic.lexical import STOPWORDS, stem

QUOTE_OPEN, QUOTE_CLOSE = "\"“'‘", "\"”'’"
TOKEN = re.compile(
    rf"(?<!\w)[{QUOTE_OPEN}](?P<quoted>[^{QUOTE_CLOSE}]{{1,200}}?)[{QUOTE_CLOSE}](?!\w)"
    rf"|(?P<placeholder>{PLACEHOLDER.pattern})"
    r"|(?P<value>\d+(?:[:.,/x-]\d+)*%?(?:\.[a-z0-9]{2,4})?)"
    r"|(?P<word>[^\W\d_][\w.-]*)")
PARTS = re.compile(r"[:.,/x-]")


@dataclass(frozen=True)
class Token:
    key: str  # what alignment compares: a word's stem, a value as written
    text: str  # as written in the task
    kind: str  # quoted | placeholder | value | word
    position: int  # index among the sentence's tokens (0: its first word)
    filler: bool = False  # a function word: never a difference of structure

    @property
    def is_value(self) -> bool:
        return self.kind != "word" or any(c.isdigit() for c in self.text) or "." in self.text.strip(".")

    @property
    def is_name(self) -> bool:
        return self.kind == "word" and self.position > 0 and self.text[:1].isupper()


def tokens(text: str) -> list[Token]:
    """A task's tokens. Function words stay (they keep adjacent parameters apart:
    "from '222' to '333'") but are fillers: differing in them alone changes nothing."""
    out: list[Token] = []
    for position, m in enumerate(TOKEN.finditer(text)):
        kind = m.lastgroup or "word"
        raw = m.group(kind).strip()
        if kind == "word":
            word = raw.lower().rstrip(".-")
            word = word[:-2] if word.endswith("'s") else word
            if not word:
                continue
            out.append(Token(stem(word), raw.rstrip(".-"), kind, position, word in STOPWORDS))
        else:
            out.append(Token(raw.lower() if kind == "quoted" else raw, raw, kind, position))
    return out


@dataclass(frozen=True)
class Param:
    old: str
    new: str


def _whole_word(value: str, text: str) -> bool:
    return bool(value) and re.search(rf"(?<!\w){re.escape(value)}(?!\w)", text, re.I) is not None


def is_param(old: list[Token], new: list[Token], used: list[str]) -> bool:
    """A differing segment is a parameter: a value, a name, or something the stored steps used."""
    if not old or not new:
        return False
    if any(t.is_value for t in old + new):
        return all(t.is_value or t.filler for t in old + new)
    if all(t.is_name for t in old) and all(t.is_name for t in new):
        return True
    old_text = " ".join(t.text for t in old)
    return any(_whole_word(old_text, u) for u in used)


def align(stored: str, task: str, used: list[str]) -> list[Param] | None:
    """The parameters that turn `stored` into `task`, or None when their structure differs.
    `used`: the labels and typed texts of the stored task's steps."""
    a, b = tokens(stored), tokens(task)
    matcher = SequenceMatcher(None, [t.key for t in a], [t.key for t in b], autojunk=False)
    params: list[Param] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        old, new = _trim(a[i1:i2]), _trim(b[j1:j2])
        if op == "equal" or not (old or new):
            continue
        if not is_param(old, new, used):
            return None
        params.append(Param(" ".join(t.text for t in old), " ".join(t.text for t in new)))
    return params


def _trim(segment: list[Token]) -> list[Token]:
    """A differing segment without the function words at its ends."""
    start, end = 0, len(segment)
    while start < end and segment[start].filler:
        start += 1
    while end > start and segment[end - 1].filler:
        end -= 1
    return segment[start:end]


def substitute(text: str, param: Param) -> str | None:
    """`text` (a typed input, a label) with the parameter's old value replaced by the new
    one, or None when it does not use the old value. A part of a value carries over
    as the same part ("pic4.jpg" → "beach.jpg" makes "pic4" "beach")."""
    if not text:
        return None
    if text.strip().lower() == param.old.lower():
        return param.new
    if _whole_word(param.old, text):
        return re.sub(rf"(?<!\w){re.escape(param.old)}(?!\w)", lambda _: param.new, text, flags=re.I)
    old_parts, new_parts = PARTS.split(param.old), PARTS.split(param.new)
    if len(old_parts) > 1 and len(old_parts) == len(new_parts):
        for old, new in zip(old_parts, new_parts):
            if old and text.strip().lower() == old.lower():
                return new
    return None


def values(task: str) -> list[str]:
    """The values a task states (quoted texts, numbers, file names), each followed by its parts."""
    out: list[str] = []
    for t in tokens(task):
        if t.is_value:
            out += [t.text] + [p for p in PARTS.split(t.text) if p and p != t.text]
    return out
