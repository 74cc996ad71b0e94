"""One candidate plan: a route (and maybe a list item on the way) to a target, with the screen work around it.

`compose` walks the route; on each screen it passes it first does what the
task asks there (agent/screenwork.py: options, fields; agent/plansteps.py records the
steps), then takes the hop. A plan stops at its goal: the target acted on (the value
typed, the choice made), or the confirm the memory shows it needs; nothing follows.
An input with no value the task names is never typed: the plan ends before it; a
toggle the task names less than the one its screen work chose is no goal of its own.
A confirm (rule `confirm_evidence`) is added only where the memory shows the change
does not hold without it: a field was typed on the screen (a form), the target opened
the screen and nothing was changed there (a question: Delete? YES), a choice of the
screen was seen to leave it open, or the screen offers a dismiss (Cancel) that leaves
it unchanged; without the rule every screen the plan changed is confirmed.
A hop on the row the task names (an item anchor) becomes a slot step. At the
target screen the target is acted on; if it opens a dialog or form (or, never seen
to open anything, its twin did: same label, resource id and role elsewhere in the
app; rule `twin_effect`), that screen's work follows, then its confirm button when the plan changed something
there and the memory does not show the change closing it (a radio row whose
recorded tap left the dialog needs no OK). A row never seen tapped ends where its list's rows
led (rule `sibling_effect`). An item the task names on the target's
screen is picked before the target (a folder, then the dialog's OK; rule `item_then_target`), and
of the controls leading to the same next screen a hop takes the one the task names (`named_way`, which
also makes the planner try routes through the controls the task names: agent/candidate_routes.py). A choice never
seen taken on a screen without a confirm closes it to where back led (`choice_closes`), and a choice
that closed its dialog onto a form is committed by the form's confirm (`commit_landing`); a look-alike
screen of another app lends its confirm and its twins' effects (`crowd_twins`, agent/crowd.py).

A target field that already shows the task's value is not typed again: its form's confirm keeps it;
so is a time a screen the plan confirms already shows (a timer dialog showing 05:00 for "a timer of
5:00"), and a choice the task names that the screen shows made (a number's type "Mobile" on its
spinner): the plan says them without changing them (`kept_values`, rule `shown_kept`).

`score` rates a whole candidate: retrieval score of the target, plus cover_w ×
the share of the task's words that the plan's labels, inputs and kept values say (but the words of the
planned app's own name, which say which app and not the way through it), plus
value_w × the share of the task's values the plan types or selects, minus
step_cost per step, plus rel_w × ln(product of the hops' reliabilities)
(PlannerConfig, appmem/planconfig.py, holds these constants and the rules' switches).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from appmem.agent.appgraph import AppGraph, twin_key
from appmem.agent.plansteps import GUESS, PlanSteps
from appmem.agent.screenwork import (confirm, dialog_button, is_confirm, item_template, label, role, shows, shows_line,
                                     clock_time, stem_of, typed, wanted_state)
from appmem.agent.taskparse import ParsedTask, alike, content_stems, coverage, stem, stems_said
from appmem.semantic.lexical import STOPWORDS
from appmem.formats.ui import ActionType
from appmem.graph.model import Element, RouteStep
from appmem.graph.routes import Edge
from appmem.planconfig import DEFAULT, PlannerConfig


@dataclass
class Anchor:
    """A list row that shows an item the task names: select it (as a slot) to reach its detail screen."""

    row: Element
    value: str
    opens: str

    def same_rows(self, e: Element, config: PlannerConfig = DEFAULT) -> bool:
        """`e` is the anchor's row or another row of its list (same screen, container and class). A
        dialog's buttons (OK, Cancel) often share the list's container and class (AutoDroid's HTML
        flattens a folder picker into one row of buttons); they close the list, they are not in it."""
        return e.id == self.row.id or (e.screen_id == self.row.screen_id and e.class_name == self.row.class_name
                                       and e.key.rsplit("/", 1)[0] == self.row.key.rsplit("/", 1)[0]
                                       and not e.content_desc and not (config.buttons_not_rows and dialog_button(e)))


@dataclass
class RouteCandidate:
    target: Element
    retrieval: float
    steps: list[RouteStep]
    hops: list[Edge] = field(default_factory=list)
    score: float = 0.0
    # the task's values it sets without typing them: keyed on a keypad, or shown on a screen it confirms (`kept_values`)
    kept: set[str] = field(default_factory=set)


class Composer(PlanSteps):
    """One candidate's steps, composed along its route to its target by the rules (its PlannerConfig)."""

    def quoted(self, element: Element) -> bool:
        """The task quotes this element's label after a verb of touching ("tap 'Import'"), or its words."""
        return self.config.quoted_label and self.task.says(label(element))

    def twin_opens(self, target: Element) -> str | None:
        """The screen a twin of `target` (same label, resource id and role, in this app) was seen to open.
        One control on look-alike screens (a photo viewer before and after an edit) does the same thing,
        and the exploration may have tried it on one of them only."""
        if not self.config.twin_effect or not label(target):
            return None
        twins = self.graph.twins.get(twin_key(target), ())
        return next((screen for e in twins if e.id != target.id and (screen := self.graph.opens(e))), None)

    def closes(self, target: Element) -> str:
        """Where a choice never seen taken leads: a choice on a screen without a confirm (a single-choice
        dialog) closes it, back to where leaving it went (rule `choice_closes`); else nowhere new."""
        if self.config.choice_closes and role(target) == "toggle" and not self.is_form(target.screen_id):
            return self.graph.back_of(target.screen_id) or target.screen_id
        return target.screen_id

    def confirm_on(self, screen: str, lent: bool = False) -> Element | None:
        """The first confirm button of `screen` not acted on yet (screenwork.confirm); with `lent`, else the first
        of those its look-alikes in other apps lend (rule `crowd_twins`)."""
        ok = next((e for e in self.graph.screen_kinds(screen).confirms if e.id not in self.acted), None)
        if ok is None and lent and self.config.crowd_twins:
            ok = confirm(self.graph.lent.get(screen, []), self.acted)
        return ok

    def item(self, anchor: Anchor) -> None:
        """Select the row that shows the task's item: a slot step with the value and a locator template."""
        row = anchor.row
        self.work(row.screen_id, row.id, form=self.is_form(row.screen_id))
        self._step(item_template(row, anchor.value, self.config), row.action, row.screen_id, anchor.value,
                   to=anchor.opens, confidence=GUESS, slot="item")

    def named(self, edge: Edge) -> Edge:
        """`edge`, or the edge of the same screen to the same next screen whose control the task names
        more ("Move to" and "Copy to" open one folder dialog; the route search sees only their cost)."""
        if not self.config.named_way:
            return edge

        def said_by(x: Edge) -> float:
            e = self.graph.elements.get(x.element_id)
            return coverage(label(e), self.task.words) if e is not None else 0.0

        same = self.graph.alike(edge)
        if not same or (len(same) == 1 and same[0] == edge):
            return edge  # no other control leads there
        best = max(same, key=said_by)
        return best if said_by(best) > said_by(edge) else edge

    def hop(self, edge: Edge, anchor: Anchor | None = None) -> None:
        edge = self.named(edge)
        element = self.graph.elements.get(edge.element_id)
        self.work(edge.source, edge.element_id, form=self.is_form(edge.source))
        text, slot = (edge.detail if edge.action != "input" else edge.input_template), None
        if anchor is not None and element is not None and anchor.same_rows(element, self.config):
            element, text, slot = item_template(element, anchor.value, self.config), anchor.value, "item"
        elif edge.action == "input" and (left := self.unused()):
            text = left[0]
            self.values.add(text)
        self._step(element, ActionType(edge.action), edge.source, text, to=edge.target,
                   confidence=edge.reliability, slot=slot, stale=edge.stale, layer=edge.layer)

    def reached(self, target: Element, chosen: list[RouteStep]) -> bool:
        """The goal is done without acting on `target`: it is a field with nothing the task names left to type;
        a confirm of a screen where the screen work just chose something that the memory does not show needing
        it; or a toggle, the screen work just chose a toggle there, and the target is named less than that choice
        or is already as the task wants it (a choice already made): the choice is the task's; or a toggle the
        memory shows already as the task wants it, on a screen the plan fills (a note's kind, checked by default):
        a tap would undo it."""
        if role(target) == "input":
            return not self.unused()
        if is_confirm(target):
            return bool(chosen) and not self.needs_confirm(target.screen_id, False)
        if role(target) != "toggle":
            return False
        share = coverage(label(target), self.task.words)
        wanted = wanted_state(self.task, self.config)
        if ("checked" in target.flags) == wanted and chosen:
            return True  # the choice the memory shows made, on a form the plan fills: left alone
        made = [s for s in chosen if s.element is not None and role(s.element) == "toggle"]
        return bool(made) and (("checked" in target.flags) == wanted
                               or any(coverage(label(s.element), self.task.words) > share for s in made))

    def needs_confirm(self, screen: str, question: bool) -> bool:
        """The memory shows that what the plan changed on `screen` does not hold without its confirm (rule
        `confirm_evidence`; without it, every changed screen is confirmed): the plan typed into a field there,
        the target opened it as a question, a choice there was seen to leave it open, or a dismiss of it
        (Cancel) leaves it with nothing changed."""
        if not self.config.confirm_evidence or question:
            return True
        if any(s.screen_id == screen and s.action is ActionType.INPUT for s in self.steps):
            return True
        # The plan knows what it typed: a field it left alone does not call for the confirm.
        return self.graph.confirm_needed(screen)

    def finish(self, target: Element) -> None:
        before = len(self.steps)
        changed = self.work(target.screen_id, target.id, form=self.is_form(target.screen_id))
        if self.reached(target, self.steps[before:]):
            ok = self.confirm_on(target.screen_id)
            if changed and ok is not None and self.needs_confirm(target.screen_id, False):
                self._act(ok, why="confirm")
            return
        if target.id not in self.acted:
            value = ""
            if role(target) == "input":
                value = self.unused()[0]
                self.values.add(value)
                value = typed(target, value, self.config)
                if shows(target, value):  # the value is in the field already: the form's confirm keeps it
                    if (ok := self.confirm_on(target.screen_id, lent=True)) is not None:
                        self._act(ok, why="confirm")
                    return
            self._act(target, value, why="confirm" if is_confirm(target) else "value" if value else "target")
        if is_confirm(target) or self.quoted(target):
            return  # a confirm closes the work; a control the task names word for word is the whole task
        opened = self.graph.opens(target) or self.twin_opens(target) or (
            self.graph.lent_opens.get(target.id) if self.config.crowd_twins else None)
        if opened and self.steps[-1].to_screen == target.screen_id:
            self.steps[-1].to_screen = opened  # where its twin went
        elif not opened and self.steps[-1].to_screen == target.screen_id and not dialog_button(target):
            # a row never seen tapped goes where its list's other rows went (a choice list closes): a second
            # goal starts there. A dialog's OK or Cancel is no row, and where it leads says nothing of them.
            self.steps[-1].to_screen = (self.config.sibling_effect and self.graph.sibling_opens(target, skip=dialog_button)
                                        ) or self.closes(target)
        question = False
        if opened and role(target) == "tap":  # a dialog or form the target opens is done, then confirmed
            question = not self.work(opened)
            screen, changed = opened, 1
        else:
            screen, changed = target.screen_id, changed + (role(target) in ("toggle", "input"))
        closed = self.steps[-1].to_screen != screen
        ok = self.confirm_on(screen)
        if changed and ok is not None and not closed and self.needs_confirm(screen, question):
            self._act(ok, why="confirm")
        elif changed and closed and role(target) == "toggle" and self.config.commit_landing:
            # the choice closed its dialog onto the form it belongs to: the form's confirm commits it
            landing = self.steps[-1].to_screen
            if (ok := self.confirm_on(landing, lent=True)) is not None:
                self._act(ok, why="confirm")


def compose(graph: AppGraph, task: ParsedTask, target: Element | None, retrieval: float,
            segments: list[list[Edge]], anchor: Anchor | None = None,
            config: PlannerConfig = DEFAULT) -> RouteCandidate:
    """A plan along `segments`: one route to `target`; or, with an anchor, the route to its row, the row
    as a slot step, and the route from the item's screen to `target` (none: the item is the goal)."""
    c = Composer(graph, task, config)
    if anchor is not None:
        c.reserved.add(anchor.value)  # the item's name is selected, typed only where the task names the field
    hops: list[Edge] = []
    for k, segment in enumerate(segments):
        if k:
            c.item(anchor)
        for edge in segment:
            c.hop(edge, anchor)
        hops += segment
    if target is None:
        c.item(anchor)
        c.steps[-1].why = "target"  # the item is the goal
        return RouteCandidate(anchor.row, retrieval, c.steps, hops)
    if anchor is not None and config.item_then_target and anchor.row.screen_id == target.screen_id \
            and not any(s.slot == "item" for s in c.steps):  # pick the folder, then its OK
        c.item(anchor)
    c.finish(target)
    shown = kept_values(c.steps, graph, task) if config.shown_kept else set()
    return RouteCandidate(target, retrieval, c.steps, hops, kept=c.kept | shown)


def kept_values(steps: list[RouteStep], graph: AppGraph, task: ParsedTask) -> set[str]:
    """The task's times that a screen the plan confirms already shows (a timer dialog showing 05:00 for a timer
    of 5:00), and the choices it shows made that the task names (a phone number's type, "Mobile", on its
    spinner: AppGraph.shown_choices): the confirm commits them as they are, so the plan sets them without
    changing them. A name shown is no such value: a list shows the names to choose from (folders, items),
    not the one chosen."""
    confirmed = {s.screen_id for s in steps if s.element is not None and is_confirm(s.element)}
    times = {v.text for v in task.values if clock_time(v.text) for screen in confirmed
             if any(shows_line(e, v.text) for e in graph.screen_elements(screen))}
    return times | {choice for screen in confirmed for choice in graph.shown_choices(screen)
                    if coverage(choice, task.words) == 1.0}


def unasked(candidate: RouteCandidate) -> int:
    """State changes the plan makes on its way only (toggles, choices, risky taps taken as route hops): none
    is the task's own, so a route without them is preferred."""
    return sum(s.why == "route" and s.element is not None and (s.risky or role(s.element) == "toggle")
               for s in candidate.steps)  # AppGraph.changes_state, for a step


def lands(candidate: RouteCandidate) -> float:
    """ln P(every hop of the candidate's route lands where the plan expects it): the product of the hops'
    landing (reliability × share of their action's recorded outcomes, graph/routes.py)."""
    return sum(math.log(h.landing) for h in candidate.hops)


def task_stems(task: ParsedTask) -> set[str]:
    """The stems a plan is rated on saying: the task's content words, but those naming the app it is planned in."""
    stems = {stem(w) for w in task.words if w not in STOPWORDS}
    return {s for s in stems if not any(alike(s, a) for a in task.app)}


def spoken(steps: list[RouteStep]) -> set[str]:
    """The stems a plan's steps say: their elements' labels and texts, and what they type."""
    return {s for step in steps for s in content_stems(
        " ".join((label(step.element) if step.element else "", step.element.text if step.element else "",
                  step.input)))}


def score(candidate: RouteCandidate, task: ParsedTask, config: PlannerConfig = DEFAULT) -> float:
    said = spoken(candidate.steps) | {s for v in candidate.kept for s in content_stems(v)}
    cover = stems_said(task_stems(task), said)
    typed = " ".join([s.input for s in candidate.steps] + sorted(candidate.kept)).lower()
    used = sum(stem_of(v.text, config).lower() in typed for v in task.values) / len(task.values) if task.values else 0.0
    reliable = sum(math.log(h.reliability) for h in candidate.hops)
    return (candidate.retrieval + config.cover_w * cover + config.value_w * used - config.step_cost * len(candidate.steps)
            + config.rel_w * reliable)
