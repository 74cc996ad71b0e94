"""What a task asks on one screen besides leaving it: options to select, fields to fill, the confirm button.

MobileGPT's sub-tasks without an LLM. On every screen a plan passes (settings
pages, dialogs, forms):
- an option (radio row, checkbox, switch) is selected when the task says at
  least `option_min` (PlannerConfig) of its label's words and no other toggle of
  the screen says those words and more (that one is the task's: "show phone
  numbers" names "Show phone numbers", not "Show only contacts with phone
  numbers"); a toggle already in the state the task wants (on, unless the task
  says off: "disable …" on an unchecked switch, a named choice already checked)
  is left alone: a plan changes nothing the task did not ask;
- each field gets at most one value, the one that fits it: a field that shows
  the X of "from X to Y" gets Y (memory keeps X scrubbed of personal data, as
  formats/privacy.py scrubs every text: the step shows X); a number / phone field the task's number;
  a name or title field the quoted or named text;
- a screen with a confirm button (OK, Save, Done …) is a form: its fields are the
  task's to fill (whether its confirm follows is agent/compose.py's).
Words for field kinds are generic UI vocabulary, not any benchmark's.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from appmem.agent.taskparse import ParsedTask, Value, alike, content_stems, coverage, stem
from appmem.formats.privacy import PLACEHOLDER, scrub_text
from appmem.planconfig import DEFAULT, PlannerConfig
from appmem.graph.model import Element
from appmem.graph.screens import xpath_literal
from appmem.graph.vocabulary import BACK_WORDS, CONFIRM_WORDS, head, humanize, label_of

NUMBER_FIELD = re.compile(r"\b(phone|number|mobile|tel|cell|digits?|amount|count|quantity|age|pin|code|zip|"
                          r"size|width|height|hours?|minutes?|seconds?|price)\b", re.I)
TEXT_FIELD = re.compile(r"\b(name|title|label|subject|message|note|text|search|query|file|folder|description|"
                        r"content|comment|tag|group|event|task)\b", re.I)
CLOCK = re.compile(r"([0-9]{1,2}(?::[0-9]{2}){1,2})\s*([ap]\.?m\.?)?")
FILE_NAME = re.compile(r"([\w-]+)\.([A-Za-z][A-Za-z0-9]{1,4})")
NUMERIC = ("phone", "number", "new", "percent", "size", "time")
TEXTUAL = ("new", "quoted", "named", "file")


@dataclass(frozen=True)
class Reading:
    """How the vocabulary reads an element: computed once per element content (plans read each many times)."""

    label: str
    role: str
    confirm: bool


@lru_cache(maxsize=65536)
def _read(class_name: str, resource_id: str, text: str, content_desc: str, flags: tuple[str, ...]) -> Reading:
    e = Element("", "", class_name=class_name, resource_id=resource_id, text=text, content_desc=content_desc,
                flags=list(flags))
    name = head(label_of(e))
    confirm_ = humanize(text or content_desc).lower() in CONFIRM_WORDS or name.lower() in CONFIRM_WORDS
    return Reading(name, e.role, confirm_)


def reading(e: Element) -> Reading:
    """Kept on the element after its first reading: a plan reads each element's label and role many times, and
    elements are never changed once made (dataclasses.replace makes another, read afresh)."""
    found = e.__dict__.get("_reading")
    if found is None:
        found = e.__dict__["_reading"] = _read(e.class_name, e.resource_id, e.text, e.content_desc, tuple(e.flags))
    return found


def label(e: Element) -> str:
    """The element's name for matching: its label's first line (a second line is a value)."""
    return reading(e).label


def role(e: Element) -> str:
    return reading(e).role


def is_confirm(e: Element) -> bool:
    return reading(e).confirm


def said_by(text: str, task: ParsedTask) -> frozenset[str]:
    """The content stems of `text` that the task says."""
    return _said_by(text, tuple(task.words))


@lru_cache(maxsize=65536)
def _said_by(text: str, task_words: tuple[str, ...]) -> frozenset[str]:
    words = {stem(w) for w in task_words}
    return frozenset(s for s in content_stems(text) if any(alike(s, w) for w in words))


def wanted_state(task: ParsedTask, config: PlannerConfig) -> bool | None:
    """The state the task wants the toggles it names in: off or on as it says; on when it says neither and rule
    `leave_checked` holds (a named choice the memory shows made is left alone); None: unknown."""
    return task.want_on if task.want_on is not None else (True if config.leave_checked else None)


def options(elements: list[Element], task: ParsedTask, skip: set[str], config: PlannerConfig = DEFAULT
            ) -> list[Element]:
    """The toggles of a screen that the task names, that no other toggle of the screen names better (says the
    same words of the task and a larger share of its own), and that are not yet as the task wants them; none
    in `skip`."""
    return [e for e in named_toggles(elements, task, config) if e.id not in skip] if elements else []


def named_toggles(elements: list[Element], task: ParsedTask, config: PlannerConfig = DEFAULT) -> list[Element]:
    """`options` before `skip`: found once per task and screen (every candidate of a plan passes the same screens)."""
    wanted = wanted_state(task, config)
    key = ("options", tuple(e.id for e in elements), config.option_min, wanted)
    found = task.memo.get(key)
    if found is None:
        toggles = [e for e in elements if role(e) == "toggle"]
        named = {e.id: (coverage(label(e), task.words), said_by(label(e), task)) for e in toggles}
        found = task.memo[key] = [
            e for e in toggles if named[e.id][0] >= config.option_min and ("checked" in e.flags) != wanted  # never when None
            and not any(named[o.id][0] > named[e.id][0] and named[e.id][1] <= named[o.id][1]
                        for o in toggles if o.id != e.id)]
    return found


def field_name(e: Element) -> str:
    """What a field is for: its label, id and description, and its text when that reads as a hint
    (no digits: 'First name', not '222222')."""
    text = e.text.strip().split("\n", 1)[0]
    hint = "" if re.search(r"\d|@", text) else text
    return " ".join((label(e), hint, e.resource_id.rsplit("/", 1)[-1], e.content_desc))


def _fits(e: Element, value: Value) -> bool:
    name = field_name(e)
    if value.kind in NUMERIC and NUMBER_FIELD.search(name):
        return value.kind != "new" or bool(re.search(r"\d", value.text))
    if value.kind in TEXTUAL and (TEXT_FIELD.search(name) or not NUMBER_FIELD.search(name)):
        return True
    return False


def fields(elements: list[Element], task: ParsedTask, used: set[str], config: PlannerConfig = DEFAULT
           ) -> list[tuple[Element, str, str | None]]:
    """(field, value, slot) for each field of the screen that a task value fits, each value used once."""
    inputs = [e for e in elements if role(e) == "input"]
    free = [v for v in task.values if v.text not in used and stem_of(v.text, config) not in used]
    out: list[tuple[Element, str, str | None]] = []
    for old in task.old:  # "from X to Y": the field showing X gets Y
        new = next((v for v in free if v.kind == "new"), None)
        shown = next((e for e in inputs if shows_kept(e, old)), None) or next(
            (e for e in inputs if _shape(e.text) == _shape(old)), None)
        target = shown or next((e for e in inputs if new and _fits(e, new)), None)
        if new and target:
            out.append((showing(target, old) if shown else target, new.text, "value"))
            free.remove(new)
            inputs.remove(target)
    for e in inputs:  # a field is never given the text it already shows: that changes nothing
        value = next((v for v in free if _fits(e, v) and _takes_file(e, v.text, config) and not shows(e, v.text)),
                     None)
        if value is not None:
            out.append((e, typed(e, value.text, config), "value"))
            free.remove(value)
    order = {e.id: k for k, e in enumerate(elements)}
    return sorted(out, key=lambda a: order.get(a[0].id, 0))


def shows(e: Element, value: str) -> bool:
    """The field shows `value` already (`same_value`): typing it changes nothing."""
    return same_value(e.text, value)


def shows_line(e: Element, value: str) -> bool:
    """A line of the element's text is `value` (`same_value`): a button showing a duration, a setting's row
    showing its current choice on its second line."""
    return any(same_value(line, value) for line in e.text.split("\n"))


def same_value(shown: str, value: str) -> bool:
    """`shown` is `value`: the same text (case and spacing aside), or the same time of day or duration
    ('05:00' is '5:00'), or the same number ('07' is '7')."""
    a, b = " ".join(shown.split()).lower(), " ".join(value.split()).lower()
    if not a or not b:
        return False
    return a == b or (_quantity(a) is not None and _quantity(a) == _quantity(b))


def clock_time(text: str) -> bool:
    """`text` is a time of day or a duration ('5:00', '07:30 pm')."""
    return CLOCK.fullmatch(" ".join(text.split()).lower()) is not None


def _quantity(text: str) -> tuple[int, ...] | None:
    """A time ('5:00', '07:30 pm', '1:02:03') as its numbers, 12 hours added after noon; a whole number as itself."""
    if text.isdecimal():
        return (int(text),)
    m = CLOCK.fullmatch(text)
    if m is None:
        return None
    parts = [int(x) for x in m.group(1).split(":")]
    if m.group(2) and m.group(2).startswith("p") and parts[0] < 12:
        parts[0] += 12
    return tuple(parts)


def shows_kept(e: Element, value: str) -> bool:
    """The field shows `value` as the memory keeps it: word for word (case aside), or scrubbed of personal data
    as every recorded text is (formats/privacy.py: '222222' typed into a field is kept as <NUMBER>)."""
    text = e.text.strip()
    return same_value(text, value) or (
        bool(PLACEHOLDER.fullmatch(text)) and text == scrub_text(value.strip(), typed=True))


def showing(e: Element, value: str) -> Element:
    """The field as the live screen shows it, where the memory keeps a placeholder for what it shows: its text
    `value` (what the task says it shows), with locators for that text instead of the placeholder's."""
    if not PLACEHOLDER.search(e.text):
        return e
    literal = xpath_literal(value)
    kept = [x for x in e.locators if not PLACEHOLDER.search(x)]
    return replace(e, text=value, locators=[f"//{e.class_name}[@text={literal}]", *kept])


def _file(text: str) -> tuple[str, str] | None:
    """(stem, extension) of a file name ("pic4.jpg"), None for other text."""
    m = FILE_NAME.fullmatch(text.strip())
    return (m.group(1), m.group(2)) if m else None


def stem_of(value: str, config: PlannerConfig = DEFAULT) -> str:
    """A file name without its extension (what a form that adds the extension gets typed); other text as is."""
    parts = _file(value)
    return parts[0] if parts and config.file_name else value


def _takes_file(e: Element, value: str, config: PlannerConfig) -> bool:
    """A file name goes into the field for the name: not one showing a folder path ("Internal/DCIM/"),
    nor one showing just its extension ("jpg", beside the name field of a Save-as form)."""
    parts = _file(value)
    if parts is None or not config.file_name:
        return True
    shown = e.text.strip()
    return "/" not in shown and shown.lower() != parts[1].lower()


def typed(e: Element, value: str, config: PlannerConfig = DEFAULT) -> str:
    """What to type: a file name loses its extension when the field shows a file name without one (the
    name the app proposes, "contacts_2023_07_01" or "pic3": the app adds the extension itself)."""
    shown = e.text.strip()
    return value if not shown or _file(shown) or re.search(r"[/\s]", shown) else stem_of(value, config)


def _shape(text: str) -> str:
    """A value's kind of characters: 'digits', 'letters' or 'mixed' ('222222' is shaped like '111111')."""
    text = re.sub(r"[\s+().-]", "", text.strip())
    return "digits" if text.isdigit() else "letters" if text.isalpha() else "mixed"


def dialog_button(e: Element) -> bool:
    """A button that closes its dialog: a confirm (OK, Save) or a dismiss (Cancel, No)."""
    return is_confirm(e) or label(e).lower() in BACK_WORDS


def confirm(elements: list[Element], skip: set[str]) -> Element | None:
    return next((e for e in elements if e.id not in skip and role(e) == "tap" and is_confirm(e)), None)


def item_template(row: Element, value: str, config: PlannerConfig = DEFAULT) -> Element:
    """A list row as a slot: the row showing `value`, with locators built for that text."""
    literal = xpath_literal(value)
    locators = [f"//*[@text={literal}]", f"//*[starts-with(@text, {literal})]"]
    if row.resource_id:
        locators.insert(0, f"//*[@resource-id={xpath_literal(row.resource_id)} and @text={literal}]")
    first = row.text.strip().split("\n", 1)[0].strip()
    shown = row.text if config.whole_row and first.lower() == value.lower() else value
    return replace(row, text=shown, content_desc="", locators=locators)
