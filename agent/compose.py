"""One candidate plan: a route (and maybe a list item on the way) to a target, with the screen work around it.

`compose` walks the route; on each screen it passes it first does what the
task asks there (agent/screenwork.py: options, fields; agent/plansteps.py records the
steps), then takes the hop.
A hop on the row the task names (an item anchor) becomes a slot step. At the
target screen the target is acted on; if it opens a dialog or form (or, never seen
to open anything, its twin did: same label, resource id and role elsewhere in the
app; rule `twin_effect`), that screen's work follows, then its confirm button when the plan changed something
there and the memory does not show the change closing it (a radio row whose
recorded tap left the dialog needs no OK). A row never seen tapped ends where its list's rows
led (rule `sibling_effect`), so a second goal starts there. An item the task names on the target's
screen is picked before the target (a folder, then the dialog's OK; rule `item_then_target`), and
of the controls leading to the same next screen a hop takes the one the task names (`named_way`, which
also makes the planner try routes through the controls the task names: agent/ways.py). A choice never
seen taken on a screen without a confirm closes it to where back led (`choice_closes`), and a choice
that closed its dialog onto a form is committed by the form's confirm (`commit_landing`); a look-alike
screen of another app lends its confirm and its twins' effects (`crowd_twins`, agent/crowd.py).

`score` rates a whole candidate: retrieval score of the target, plus COVER_W ×
the share of the task's words that the plan's labels and inputs say, plus
VALUE_W × the share of the task's values the plan types or selects, minus
STEP_COST per step, plus REL_W × ln(product of the hops' reliabilities).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from appmem.agent.appgraph import AppGraph
from appmem.agent.plansteps import GUESS, PlanSteps
from appmem.agent.screenwork import confirm, dialog_button, fields, is_confirm, item_template, label, role, stem_of, typed
from appmem.agent.taskparse import ParsedTask, alike, content_stems, coverage, said, stem
from appmem.semantic.lexical import STOPWORDS
from appmem.formats.ui import ActionType
from appmem.graph.model import Element, PlanStep
from appmem.graph.routes import Edge

COVER_W = 0.6  # COVER_W, VALUE_W: chosen leave-one-app-out by bench/plan.py
VALUE_W = 0.0
STEP_COST = 0.03
REL_W = 0.05
# Special rules, each switchable so bench/plan.py measures it leave-one-app-out (with and without).
# confirm_changed and twin_effect gain on several shared apps (kept by all six folds); the others on one
# app or none (README, "Rules that fit one task"): on while they change no other app's successes.
RULES = {"confirm_changed": True,  # a dialog or form the plan changed is confirmed (its OK)
         "submit_forms": False,  # a form filled on the way is submitted when the plan is back on it
         "fill_rest": False,  # values still unsaid go into the fields of the screen the plan ends on
         "then": True,  # a task with a second goal ("… and sort by date") goes on from where the plan ends
         "quoted_label": True,  # "tap 'X'": the element labelled exactly X is a target
         "twin_effect": True,  # a target never seen to open anything opens what its twin was seen to open
         "buttons_not_rows": True,  # a dialog's OK or Cancel is no row of the list beside it
         "item_then_target": True,  # the item the task names, on the target's screen, is selected first
         "then_pool": True,  # a second goal may be any element whose label says two of the task's words
         "sibling_effect": True,  # a row never seen tapped leads where the rows beside it led
         "choice_closes": True,  # a choice on a screen without a confirm closes it, to where back led
         "commit_landing": True,  # a choice that closed its dialog onto a form is confirmed there
         "crowd_twins": True,  # a look-alike screen of another app lends its confirm and its twins' effects
         "named_way": True}  # the route takes the controls the task names (parallel edges, other routes)


@dataclass
class Anchor:
    """A list row that shows an item the task names: select it (as a slot) to reach its detail screen."""

    row: Element
    value: str
    opens: str

    def same_rows(self, e: Element) -> bool:
        """`e` is the anchor's row or another row of its list (same screen, container and class). A
        dialog's buttons (OK, Cancel) often share the list's container and class (AutoDroid's HTML
        flattens a folder picker into one row of buttons); they close the list, they are not in it."""
        return e.id == self.row.id or (e.screen_id == self.row.screen_id and e.class_name == self.row.class_name
                                       and e.key.rsplit("/", 1)[0] == self.row.key.rsplit("/", 1)[0]
                                       and not e.content_desc and not (RULES["buttons_not_rows"] and dialog_button(e)))


@dataclass
class Candidate:
    target: Element
    retrieval: float
    steps: list[PlanStep]
    hops: list[Edge] = field(default_factory=list)
    score: float = 0.0


class Composer(PlanSteps):
    """One candidate's steps, composed along its route to its target by the rules (RULES)."""

    def quoted(self, element: Element) -> bool:
        """The task quotes this element's label after a verb of touching ("tap 'Import'"), or its words."""
        return RULES["quoted_label"] and self.task.says(label(element))

    def twin_opens(self, target: Element) -> str | None:
        """The screen a twin of `target` (same label, resource id and role, in this app) was seen to open.
        One control on look-alike screens (a photo viewer before and after an edit) does the same thing,
        and the exploration may have tried it on one of them only."""
        if not RULES["twin_effect"] or not label(target):
            return None
        twins = self.graph.twins.get((label(target), target.resource_id, role(target)), ())
        return next((screen for e in twins if e.id != target.id and (screen := self.graph.opens(e))), None)

    def closes(self, target: Element) -> str:
        """Where a choice never seen taken leads: a choice on a screen without a confirm (a single-choice
        dialog) closes it, back to where leaving it went (rule `choice_closes`); else nowhere new."""
        if RULES["choice_closes"] and role(target) == "toggle" and not self.is_form(target.screen_id):
            return self.graph.back_of(target.screen_id) or target.screen_id
        return target.screen_id

    def form_elements(self, screen: str) -> list[Element]:
        """A screen's elements, and the confirms its look-alikes in other apps lend (rule `crowd_twins`)."""
        return self.graph.screen_elements(screen) + (self.graph.lent.get(screen, []) if RULES["crowd_twins"] else [])

    def item(self, anchor: Anchor) -> None:
        """Select the row that shows the task's item: a slot step with the value and a locator template."""
        row = anchor.row
        self.work(row.screen_id, row.id, form=self.is_form(row.screen_id))
        self._step(item_template(row, anchor.value), row.action, row.screen_id, anchor.value,
                   to=anchor.opens, confidence=GUESS, slot="item")

    def named(self, edge: Edge) -> Edge:
        """`edge`, or the edge of the same screen to the same next screen whose control the task names
        more ("Move to" and "Copy to" open one folder dialog; the route search sees only their cost)."""
        if not RULES["named_way"]:
            return edge

        def said_by(x: Edge) -> float:
            e = self.graph.elements.get(x.element_id)
            return coverage(label(e), self.task.words) if e is not None else 0.0

        same = [x for x in self.graph.edges.get(edge.source, ()) if x.target == edge.target and x.action == edge.action]
        best = max(same, key=said_by, default=edge)
        return best if said_by(best) > said_by(edge) else edge

    def hop(self, edge: Edge, anchor: Anchor | None = None) -> None:
        edge = self.named(edge)
        element = self.graph.elements.get(edge.element_id)
        changed = self.work(edge.source, edge.element_id, form=self.is_form(edge.source))
        if changed and self.is_form(edge.source) and not (element is not None and is_confirm(element)):
            self.forms.append(edge.source)  # filled here, left by another element than its confirm
        text, slot = (edge.detail if edge.action != "input" else edge.input_template), None
        if anchor is not None and element is not None and anchor.same_rows(element):
            element, text, slot = item_template(element, anchor.value), anchor.value, "item"
        elif edge.action == "input":
            text = next((v for v in (x.text for x in self.task.values) if v not in self.values), text)
        self._step(element, ActionType(edge.action), edge.source, text, to=edge.target,
                   confidence=edge.reliability, slot=slot, stale=edge.stale, layer=edge.layer)

    def finish(self, target: Element) -> None:
        changed = self.work(target.screen_id, target.id, form=self.is_form(target.screen_id))
        if target.id not in self.acted:
            value = ""
            if role(target) == "input":
                value = next((v.text for v in self.task.values if v.text not in self.values), "")
                self.values.add(value)
                value = typed(target, value)
            self._act(target, value)
        if is_confirm(target) or self.quoted(target):
            return  # a confirm closes the work; a control the task names word for word is the whole task
        opened = self.graph.opens(target) or self.twin_opens(target) or (
            self.graph.lent_opens.get(target.id) if RULES["crowd_twins"] else None)
        if opened and self.steps[-1].to_screen == target.screen_id:
            self.steps[-1].to_screen = opened  # where its twin went
        elif not opened and self.steps[-1].to_screen == target.screen_id and not dialog_button(target):
            # a row never seen tapped goes where its list's other rows went (a choice list closes): a second
            # goal starts there. A dialog's OK or Cancel is no row, and where it leads says nothing of them.
            self.steps[-1].to_screen = (RULES["sibling_effect"] and self.graph.sibling_opens(target, skip=dialog_button)
                                        ) or self.closes(target)
        if opened and role(target) == "tap":  # a dialog or form the target opens is done, then confirmed
            if changed and self.is_form(target.screen_id):
                self.forms.append(target.screen_id)
            self.work(opened)
            screen, changed = opened, 1
        else:
            screen, changed = target.screen_id, changed + (role(target) in ("toggle", "input"))
        closed = self.steps[-1].to_screen != screen
        ok = confirm(self.graph.screen_elements(screen), self.acted)
        if changed and ok is not None and not closed and RULES["confirm_changed"]:
            self._act(ok)
        elif changed and closed and role(target) == "toggle" and RULES["commit_landing"]:
            # the choice closed its dialog onto the form it belongs to: the form's confirm commits it
            landing = self.steps[-1].to_screen
            if (ok := confirm(self.form_elements(landing), self.acted)) is not None:
                self._act(ok)
        # back on a form filled on the way (a dialog of it is done): submit it
        for form in self.forms[::-1] if RULES["submit_forms"] else ():
            if form != screen and (ok := confirm(self.graph.screen_elements(form), self.acted)) is not None:
                self._act(ok)
                break
        if RULES["fill_rest"]:
            self._fill_rest()

    def _fill_rest(self) -> None:
        """Values the task still names ("… and type '123456'") go into the fields of the screen the plan ends on."""
        rest = [v for v in self.task.values if v.kind in ("quoted", "named", "new")
                and v.text not in self.values and v.text not in self.reserved]
        end = self.steps[-1].to_screen if self.steps else ""
        if rest and end and end != self.steps[-1].screen_id:  # only on a screen the plan moved on to
            for e, value, slot in fields(self.graph.screen_elements(end), self.task, self.values | self.reserved):
                self.values.add(value)
                self._act(e, value, slot)


def compose(graph: AppGraph, task: ParsedTask, target: Element | None, retrieval: float,
            segments: list[list[Edge]], anchor: Anchor | None = None) -> Candidate:
    """A plan along `segments`: one route to `target`; or, with an anchor, the route to its row, the row
    as a slot step, and the route from the item's screen to `target` (none: the item is the goal)."""
    c = Composer(graph, task)
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
        return Candidate(anchor.row, retrieval, c.steps, hops)
    if anchor is not None and RULES["item_then_target"] and anchor.row.screen_id == target.screen_id \
            and not any(s.slot == "item" for s in c.steps):  # pick the folder, then its OK
        c.item(anchor)
    c.finish(target)
    return Candidate(target, retrieval, c.steps, hops)


def then(graph: AppGraph, task: ParsedTask, first: Candidate, target: Element, retrieval: float,
         route: list[Edge]) -> Candidate:
    """`first`, then on from the screen it ends on to a second target: what the first plan did (elements
    acted on, values typed) stays done."""
    c = Composer(graph, task)
    c.acted = {s.element.id for s in first.steps if s.element is not None}
    c.values = {s.input for s in first.steps if s.input}
    for edge in route:
        c.hop(edge)
    c.finish(target)
    return Candidate(target, first.retrieval, first.steps + c.steps, first.hops + route)


def task_stems(task: ParsedTask) -> set[str]:
    return {stem(w) for w in task.words if w not in STOPWORDS}


def spoken(steps: list[PlanStep]) -> set[str]:
    """The stems a plan's steps say: their elements' labels and texts, and what they type."""
    return {s for step in steps for s in content_stems(
        " ".join((label(step.element) if step.element else "", step.element.text if step.element else "",
                  step.input)))}


def unsaid(task: ParsedTask, steps: list[PlanStep]) -> set[str]:
    """The task's stems that no step says."""
    told = spoken(steps)
    return {t for t in task_stems(task) if not any(alike(t, s) for s in told)}


def score(candidate: Candidate, task: ParsedTask) -> float:
    cover = said(task_stems(task), spoken(candidate.steps))
    typed = " ".join(s.input for s in candidate.steps).lower()
    used = sum(stem_of(v.text).lower() in typed for v in task.values) / len(task.values) if task.values else 0.0
    reliable = sum(math.log(h.reliability) for h in candidate.hops)
    return (candidate.retrieval + COVER_W * cover + VALUE_W * used - STEP_COST * len(candidate.steps)
            + REL_W * reliable)
