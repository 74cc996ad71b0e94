"""What screens and elements do: the summary types and the deterministic (no-LLM) summarizer.

The unit of work is a screen in its UTG context (`semantic.contexts.ScreenContext`).
From that, every screen gets a functionality summary and MobileGPT-style
sub-tasks, and every element a simulated task in AutoDroid's sense ("what
acting on this achieves"), a `risky` flag and, for inputs, a parameter.

The summary types are the edge between app content and the models (the
deterministic summarizer, an LLM's JSON, the cache): every text field is cut
to its bound (`graph.vocabulary.clip`) and every list to its length on the way
in, so no label, however long, and no number of options can fail validation.

`DeterministicSummarizer` builds them from labels, content descriptions,
resource ids (split on camelCase / snake_case), screen titles and the UTG; it
is what tests and the retrieval benchmark measure. The LLM summarizer
(semantic/llm.py) returns the same pydantic types and falls back to this one.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Annotated, Any, Iterable, Iterator, Protocol

from pydantic import BaseModel, BeforeValidator, Field

from appmem.errors import SummaryError
from appmem.graph.model import Element
from appmem.graph.vocabulary import (ACTION_WORDS, BACK_WORDS, CONFIRM_WORDS, clip, head, humanize, id_words, is_risky,
                              label_of, role_of, snake)
from appmem.semantic.contexts import ElementFacts, ScreenContext


# -- output: the summary schema (also the LLM's JSON schema), bounded at the edge ----------------
def _clip(value: Any, limit: int) -> Any:
    return clip(value, limit) if isinstance(value, str) else value


def _cut(value: Any, length: int) -> Any:
    return value[:length] if isinstance(value, list) else value


def Text(limit: int, min_length: int = 0) -> Any:
    """A str field: cleaned and cut to `limit` characters before validation."""
    return Annotated[str, BeforeValidator(partial(_clip, limit=limit)), Field(min_length=min_length, max_length=limit)]


def Upto(length: int, item: Any) -> Any:
    """A list field: its first `length` items."""
    return Annotated[list[item], BeforeValidator(partial(_cut, length=length)), Field(max_length=length)]


class Parameter(BaseModel):
    name: Text(60, 1)
    description: Text(300)


COMPLETES = 40  # whole tasks kept per element
ENTRY_ROLES = frozenset({"input", "toggle"})  # what a form or a dialog of choices holds for its confirm to carry out


class ElementSummary(BaseModel):
    element_id: str
    simulated_task: Text(400, 1)
    risky: bool = False
    parameter: Parameter | None = None
    # Whole tasks that end with acting on this element (a dialog's OK after choosing
    # one of its options, a form's Save after filling it), each embedded on its own.
    completes: Upto(COMPLETES, Text(400)) = Field(default_factory=list)


class SubTask(BaseModel):
    name: Text(80, 1)
    description: Text(400)
    parameters: Upto(20, Parameter) = Field(default_factory=list)
    elements: list[str] = Field(default_factory=list)  # element ids


class ScreenSummary(BaseModel):
    screen_id: str
    summary: Text(600, 1)
    subtasks: Upto(20, SubTask) = Field(default_factory=list)
    elements: list[ElementSummary] = Field(default_factory=list)


@dataclass
class SummarizerStats:
    calls: int = 0
    cached: int = 0
    fallbacks: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0


class Summarizer(Protocol):
    kind: str  # what made a summary (part of its hash: another kind redoes it)
    stats: SummarizerStats

    def summarize(self, contexts: list[ScreenContext]) -> list[ScreenSummary]: ...

    def made(self, screen_id: str) -> str:
        """The kind of what made the screen's last summary (an LLM summarizer's fallback's, for some)."""


def field_name(e: Element) -> str:
    """What a field is called in a summary: its label, else the text it shows. A field that shows a
    text and has no other name shows its hint ("Surname", "Number") or what the app filled in; what
    the explorer typed is not kept as its text (graph/rows.py). The label stays the planner's name."""
    return label_of(e) or (humanize(e.text) if role_of(e) == "input" else "")


def _distinct(items: Iterable[str], limit: int) -> list[str]:
    """The first `limit` distinct non-empty items, in order (reading no further than needed)."""
    out: dict[str, None] = {}
    for item in items:
        if item and item not in out:
            out[item] = None
            if len(out) == limit:
                break
    return list(out)


def _join(items: Iterable[str], limit: int) -> str:
    return ", ".join(_distinct(items, limit))


def _firsts(entries: Iterable[tuple[str | None, str]]) -> list[tuple[str | None, str]]:
    """(owner, text) entries, each text kept at its first entry and at its first entry of another owner:
    enough for `_distinct_but` to list, in order, the distinct texts of all owners but any one."""
    first: dict[str, str | None] = {}
    second: set[str] = set()
    out = []
    for owner, text in entries:
        if text not in first:
            first[text] = owner
            out.append((owner, text))
        elif text not in second and owner != first[text]:
            second.add(text)
            out.append((owner, text))
    return out


def _distinct_but(entries: list[tuple[str | None, str]], owner: str, limit: int) -> list[str]:
    """The first `limit` distinct non-empty texts of `entries` (`_firsts`) not owned by `owner`."""
    return _distinct((text for o, text in entries if o != owner), limit)


class _Screen:
    """One screen as its summary reads it: the context, its facts (semantic/contexts.py), and what its
    confirming buttons list (the other elements' names, the tasks they complete), each worked out once,
    so that a screen's summary takes time linear in its elements."""

    def __init__(self, ctx: ScreenContext):
        self.ctx = ctx
        self.facts = ctx.facts
        self._details: list[tuple[str | None, str]] | None = None
        self._completions: dict[str, list[tuple[str | None, str]]] = {}

    def details(self, button: ElementFacts) -> str:
        """What a confirming button's screen holds: up to four names of its other elements. A confirm (OK,
        Save) carries out its whole screen; an action button (Delete, Share) only where its screen is a form
        or a dialog of choices (another field or toggle there). On a page that shows an item (a photo, a
        contact) the other buttons (Favorite, Edit) are not part of what its Delete does, and naming them
        would make the Delete a match for their tasks."""
        if self._details is None:
            self._details = _firsts((f.element.id, f.head) for f in self.facts.elements if f.role != "scroll"
                                    and f.low not in BACK_WORDS | CONFIRM_WORDS and f.head)
        me = button.element.id
        if button.low not in CONFIRM_WORDS and not any(f.role in ENTRY_ROLES and f.element.id != me
                                                       for f in self.facts.elements):
            return ""
        return ", ".join(_distinct_but(self._details, me, 4))

    def completions(self, button: Element, verb: str) -> list[str]:
        """The tasks a confirming button finishes (the first COMPLETES): one per option or switch of its
        screen, one per input, and one for the screen's own question or title."""
        if verb not in self._completions:
            self._completions[verb] = _firsts(self._completion_entries(verb))
        return _distinct_but(self._completions[verb], button.id, COMPLETES)

    def _completion_entries(self, verb: str) -> Iterator[tuple[str | None, str]]:
        name, title = self.facts.name, self.facts.title
        if title and title.lower() not in {name.lower()} | self.facts.labels:
            yield None, f"{title} ({name}): {verb}"
        for f in self.facts.elements:
            label = field_name(f.element)
            if not label or label.lower() in BACK_WORDS:
                continue
            owner = f.element.id
            if f.role == "toggle":
                if self.facts.option_list:
                    yield owner, f"set {name} to '{head(label)}'"
                yield owner, f"{name}: choose '{head(label)}' and {verb}"
            elif f.role == "tap" and " / " in label and verb == "save":
                # a setting showing its value ("Theme / Light"): a confirm keeps it; an action (Delete,
                # Share on a contact's page) acts on the item, and the values shown are its content
                yield owner, f"{name}: set {head(label)} to '{label.split(' / ', 1)[1]}' and {verb}"
            elif f.role == "input":
                yield owner, f"{name}: enter the {label.lower()} and {verb}"


class DeterministicSummarizer:
    """Summaries from labels, ids and the UTG, with no model. `risky_words` adds
    to the built-in list (Settings.risky_words)."""

    kind = "deterministic"

    def __init__(self, risky_words: tuple[str, ...] = ()):
        self.risky_words = tuple(risky_words)
        self.stats = SummarizerStats()

    def made(self, screen_id: str) -> str:
        return self.kind

    def summarize(self, contexts: list[ScreenContext]) -> list[ScreenSummary]:
        """One summary per context; a screen that cannot be summarised raises SummaryError naming it."""
        out = []
        for ctx in contexts:
            try:
                out.append(self.screen(ctx))
            except (ValueError, TypeError, KeyError, IndexError) as exc:  # pydantic's ValidationError included
                raise SummaryError(f"screen {ctx.id} of {ctx.package}: cannot be summarised: "
                                   f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}") from exc
        return out

    def _element(self, screen: _Screen, f: ElementFacts) -> ElementSummary:
        ctx, e, name = screen.ctx, f.element, screen.facts.name
        role, low = f.role, f.low
        parameter = None
        completes: list[str] = []
        if role == "input":
            what = field_name(e) or f"{name} text"
            parameter = Parameter(name=snake(what), description=f"the text to type into '{what}' on {name}")
            task = f"{name}: enter the {what.lower()}"
        elif role == "toggle":
            task = self._toggle_task(screen, f)
        elif role == "scroll":
            task = f"scroll {name} to see more"
        elif low in BACK_WORDS:
            task = f"{low}: leave {name} without changes"
        elif (ctx.arrivals or screen.facts.title) and (low in CONFIRM_WORDS or low in ACTION_WORDS):
            task = self._confirm_task(screen, f)
            # "save" reads as finishing a form or a choice, which is what these buttons do
            completes = screen.completions(e, "save" if low in CONFIRM_WORDS else low)
        else:
            task = self._tap_task(screen, f)
        if role != "scroll" and low not in BACK_WORDS:
            step = f"enter {field_name(e) or name}" if role == "input" else f.head or task
            completes = [" › ".join([*path, step]) for path in ctx.paths] + completes

        return ElementSummary(element_id=e.id, simulated_task=task, risky=self.risky(ctx, e), parameter=parameter,
                              completes=list(dict.fromkeys(completes)))

    @staticmethod
    def _toggle_task(screen: _Screen, f: ElementFacts) -> str:
        name, label = screen.facts.name, f.label
        if screen.facts.option_list and screen.facts.confirmed:
            return f"select '{label}' in the {name} list, then confirm"  # the confirm button sets it
        if screen.facts.option_list:
            return f"set {name} to '{label}'"
        if "checked" in f.element.flags or label.endswith(" ON"):
            return f"turn off (disable) '{f.head}' in {name}"
        return f"turn on (enable) '{f.head}' in {name}"

    @staticmethod
    def _confirm_task(screen: _Screen, f: ElementFacts) -> str:
        """A button that carries out its screen's purpose (OK, Delete in "Delete note?"): that purpose."""
        name, label, low, title = screen.facts.name, f.label, f.low, screen.facts.title
        details = screen.details(f)
        about = title if title and title.lower() not in (name.lower(), low) and len(title) > len(label) else ""
        verb = "confirm" if low in CONFIRM_WORDS else low
        return f"{verb} {name}" + (f" ({about})" if about else "") + (f": {details}" if details else "") + \
            f" (tap '{label}')"

    @staticmethod
    def _tap_task(screen: _Screen, f: ElementFacts) -> str:
        """A button, a row, an item: its label and where it was seen to lead."""
        ctx, e, name, label, low = screen.ctx, f.element, screen.facts.name, f.label, f.low
        verb = "long press" if f.role == "long_tap" else "tap"
        task = f"{label or 'unlabeled ' + e.class_name.rsplit('.', 1)[-1]} ({verb} in {name})"
        destinations = [d for d in ctx.destinations.get(e.id, []) if d.screen_id != ctx.id]
        if destinations:
            d = destinations[0]
            shown = _join([head(t) for t in d.texts if head(t).lower() != low], 4)
            opened = head(d.title) if head(d.title).lower() != head(low) else ""
            task += "; opens " + (opened + (": " if opened and shown else "") + shown or "another screen")
        return task

    def risky(self, ctx: ScreenContext, e: Element) -> bool:
        """Whether acting on `e` is risky by the vocabulary (graph/vocabulary.is_risky, with `risky_words`): its
        label or id says so, or it confirms a screen that a risky action led to. An LLM's summary may add risk
        to this, never take it away (semantic/llm.py)."""
        label = label_of(e)
        low = label.lower()
        return low not in BACK_WORDS and (
            is_risky(label, id_words(e.resource_id), extra=self.risky_words)
            or (low in CONFIRM_WORDS and any(is_risky(a, extra=self.risky_words) for a in ctx.arrivals)))

    def screen(self, ctx: ScreenContext) -> ScreenSummary:
        screen = _Screen(ctx)
        facts = screen.facts
        elements = [self._element(screen, f) for f in facts.elements]
        by_id = {f.element.id: f for f in facts.elements}
        name = facts.name
        subtasks: list[SubTask] = []
        inputs = [s for s in elements if s.parameter]
        if inputs:
            subtasks.append(SubTask(name="fill_" + snake(name), description=f"{name}: fill in " + _join(
                [by_id[s.element_id].label for s in inputs], 6),
                parameters=[s.parameter for s in inputs if s.parameter], elements=[s.element_id for s in inputs]))
        if facts.option_list:
            choices = [s for s in elements if by_id[s.element_id].role == "toggle"]
            subtasks.append(SubTask(name="choose_" + snake(name), description=f"choose {name}",
                                    parameters=[Parameter(name="choice", description="one of " + _join(
                                        [by_id[s.element_id].label for s in choices], 8))],
                                    elements=[s.element_id for s in choices]))
        seen = {t.name for t in subtasks}
        for s in elements:
            f = by_id[s.element_id]
            if s.parameter or (facts.option_list and f.role == "toggle") or not f.label or f.low in BACK_WORDS:
                continue
            sub = snake(head(f.label))
            if sub not in seen:
                seen.add(sub)
                subtasks.append(SubTask(name=sub, description=s.simulated_task, elements=[s.element_id]))
        offers = _join((f.head for f in facts.elements if f.low not in BACK_WORDS), 8)
        summary = name + (f" (title: {facts.title})" if facts.title and facts.title != name else "") + \
            (f": offers {offers}" if offers else "")
        return ScreenSummary(screen_id=ctx.id, summary=summary, subtasks=subtasks, elements=elements)
