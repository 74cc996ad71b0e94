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

import re
from dataclasses import dataclass
from functools import partial
from typing import Annotated, Any, Protocol

from pydantic import BaseModel, BeforeValidator, Field

from appmem.errors import SummaryError
from appmem.graph.model import Element
from appmem.graph.vocabulary import (ACTION_WORDS, BACK_WORDS, CONFIRM_WORDS, clip, head, humanize, id_words, is_risky,
                              label_of, role_of, snake)
from appmem.semantic.contexts import ScreenContext


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


class ElementSummary(BaseModel):
    element_id: str
    simulated_task: Text(400, 1)
    risky: bool = False
    parameter: Parameter | None = None
    # Whole tasks that end with acting on this element (a dialog's OK after choosing
    # one of its options, a form's Save after filling it), each embedded on its own.
    completes: Upto(40, Text(400)) = Field(default_factory=list)


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


def _join(items: list[str], limit: int) -> str:
    return ", ".join([i for i in dict.fromkeys(items) if i][:limit])


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

    @staticmethod
    def screen_name(ctx: ScreenContext) -> str:
        """What the screen is for: its title when it has a real one (a short text that
        is no element's label), else what leads to it, else its title or activity."""
        title = humanize(ctx.title)
        labels = {label_of(e).lower() for e in ctx.elements}
        if ctx.arrivals:
            return ctx.arrivals[0]
        if title and len(title) <= 40 and title.lower() not in labels:
            return title
        if title:
            return title
        return humanize(re.sub(r"(Activity|Fragment)$", "", ctx.activity.rsplit(".", 1)[-1])) or "screen"

    @staticmethod
    def _is_option_list(ctx: ScreenContext) -> bool:
        """A dialog of choices (sounds, sizes, views): most of its elements are toggles."""
        usable = [e for e in ctx.elements if label_of(e).lower() not in BACK_WORDS]
        toggles = [e for e in usable if role_of(e) == "toggle"]
        return bool(ctx.arrivals) and len(toggles) >= 2 and len(toggles) >= 0.6 * len(usable)

    @staticmethod
    def _confirmed(ctx: ScreenContext) -> bool:
        """The screen's choices take effect only with a confirming button (OK, Save)."""
        return any(label_of(e).lower() in CONFIRM_WORDS for e in ctx.elements)

    def element(self, ctx: ScreenContext, e: Element, options: bool | None = None) -> ElementSummary:
        label = label_of(e)
        role = role_of(e)
        name = self.screen_name(ctx)
        low = label.lower()
        parameter = None
        completes: list[str] = []
        if role == "input":
            what = field_name(e) or f"{name} text"
            parameter = Parameter(name=snake(what), description=f"the text to type into '{what}' on {name}")
            task = f"{name}: enter the {what.lower()}"
        elif role == "toggle":
            options = self._is_option_list(ctx) if options is None else options
            if options and self._confirmed(ctx):
                task = f"select '{label}' in the {name} list, then confirm"  # the confirm button sets it
            elif options:
                task = f"set {name} to '{label}'"
            elif "checked" in e.flags or label.endswith(" ON"):
                task = f"turn off (disable) '{head(label)}' in {name}"
            else:
                task = f"turn on (enable) '{head(label)}' in {name}"
        elif role == "scroll":
            task = f"scroll {name} to see more"
        elif low in BACK_WORDS:
            task = f"{low}: leave {name} without changes"
        elif (ctx.arrivals or humanize(ctx.title)) and (low in CONFIRM_WORDS or low in ACTION_WORDS):
            details = _join([head(label_of(o)) for o in ctx.elements if o.id != e.id and role_of(o) != "scroll"
                             and label_of(o).lower() not in BACK_WORDS | CONFIRM_WORDS], 4)
            title = humanize(ctx.title)
            about = title if title and title.lower() not in (name.lower(), low) and len(title) > len(label) else ""
            verb = "confirm" if low in CONFIRM_WORDS else low
            task = f"{verb} {name}" + (f" ({about})" if about else "") + (f": {details}" if details else "") + \
                f" (tap '{label}')"
            # "save" reads as finishing a form or a choice, which is what these buttons do
            completes = self._completions(ctx, e, name, "save" if low in CONFIRM_WORDS else low)
        else:
            verb = "long press" if role == "long_tap" else "tap"
            task = f"{label or 'unlabeled ' + e.class_name.rsplit('.', 1)[-1]} ({verb} in {name})"
            destinations = [d for d in ctx.destinations.get(e.id, []) if d.screen_id != ctx.id]
            if destinations:
                d = destinations[0]
                shown = _join([head(t) for t in d.texts if head(t).lower() != low], 4)
                opened = head(d.title) if head(d.title).lower() != head(low) else ""
                task += "; opens " + (opened + (": " if opened and shown else "") + shown or "another screen")
        if role != "scroll" and low not in BACK_WORDS:
            step = f"enter {field_name(e) or name}" if role == "input" else head(label) or task
            completes = [" › ".join([*path, step]) for path in ctx.paths] + completes

        return ElementSummary(element_id=e.id, simulated_task=task, risky=self.risky(ctx, e), parameter=parameter,
                              completes=list(dict.fromkeys(completes)))

    def risky(self, ctx: ScreenContext, e: Element) -> bool:
        """Whether acting on `e` is risky by the vocabulary (graph/vocabulary.is_risky, with `risky_words`): its
        label or id says so, or it confirms a screen that a risky action led to. An LLM's summary may add risk
        to this, never take it away (semantic/llm.py)."""
        low = label_of(e).lower()
        return low not in BACK_WORDS and (
            is_risky(label_of(e), id_words(e.resource_id), extra=self.risky_words)
            or (low in CONFIRM_WORDS and any(is_risky(a, extra=self.risky_words) for a in ctx.arrivals)))

    def _completions(self, ctx: ScreenContext, button: Element, name: str, verb: str) -> list[str]:
        """The tasks a confirming button finishes: one per option or switch of its
        screen, one per input, and one for the screen's own question or title."""
        out = []
        title = humanize(ctx.title)
        if title and title.lower() not in {name.lower()} | {label_of(o).lower() for o in ctx.elements}:
            out.append(f"{title} ({name}): {verb}")
        for o in ctx.elements:
            label = field_name(o)
            if o.id == button.id or not label or label.lower() in BACK_WORDS:
                continue
            role = role_of(o)
            if role == "toggle":
                if self._is_option_list(ctx):
                    out.append(f"set {name} to '{head(label)}'")
                out.append(f"{name}: choose '{head(label)}' and {verb}")
            elif role == "tap" and " / " in label and verb == "save":
                # a setting showing its value ("Theme / Light"): a confirm keeps it; an action (Delete,
                # Share on a contact's page) acts on the item, and the values shown are its content
                out.append(f"{name}: set {head(label)} to '{label.split(' / ', 1)[1]}' and {verb}")
            elif role == "input":
                out.append(f"{name}: enter the {label.lower()} and {verb}")
        return list(dict.fromkeys(out))

    def screen(self, ctx: ScreenContext) -> ScreenSummary:
        options = self._is_option_list(ctx)
        elements = [self.element(ctx, e, options) for e in ctx.elements]
        by_id = {e.id: e for e in ctx.elements}
        name = self.screen_name(ctx)
        subtasks: list[SubTask] = []
        inputs = [s for s in elements if s.parameter]
        if inputs:
            subtasks.append(SubTask(name="fill_" + snake(name), description=f"{name}: fill in " + _join(
                [label_of(by_id[s.element_id]) for s in inputs], 6),
                parameters=[s.parameter for s in inputs if s.parameter], elements=[s.element_id for s in inputs]))
        if options:
            choices = [s for s in elements if role_of(by_id[s.element_id]) == "toggle"]
            subtasks.append(SubTask(name="choose_" + snake(name), description=f"choose {name}",
                                    parameters=[Parameter(name="choice", description="one of " + _join(
                                        [label_of(by_id[s.element_id]) for s in choices], 8))],
                                    elements=[s.element_id for s in choices]))
        seen = {t.name for t in subtasks}
        for s in elements:
            e = by_id[s.element_id]
            label = label_of(e)
            if s.parameter or (options and role_of(e) == "toggle") or not label or label.lower() in BACK_WORDS:
                continue
            sub = snake(head(label))
            if sub not in seen:
                seen.add(sub)
                subtasks.append(SubTask(name=sub, description=s.simulated_task, elements=[s.element_id]))
        offers = _join([head(label_of(e)) for e in ctx.elements if label_of(e).lower() not in BACK_WORDS], 8)
        summary = name + (f" (title: {humanize(ctx.title)})" if humanize(ctx.title) and humanize(ctx.title) != name
                          else "") + (f": offers {offers}" if offers else "")
        return ScreenSummary(screen_id=ctx.id, summary=summary, subtasks=subtasks, elements=elements)
