"""Synthetic tasks with known answers, generated from an app's memory: the ranker's only training data.

Every explored element yields tasks whose answer is that element: its label
("tap Sort by", "Sort by in Notes"), its effect ("open Settings": every
element seen to lead to the Settings screen is an answer), its breadcrumb
("go to More options › Settings › Theme"), and by role ("turn on Dark
mode", "enter the title", "set Sort by to Title"), and by the confirm of the dialog it opens
("Delete and confirm": the dialog's Yes). Each is worded several
ways, chosen by a seeded generator, so a run is reproducible. No benchmark
task text is read: the verbs below are the plain English of acting on a UI,
and every other word comes from the memory itself.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from appmem.graph.vocabulary import BACK_WORDS, CONFIRM_WORDS, head, humanize, label_of, role_of
from appmem.semantic.contexts import ScreenContext
from appmem.semantic.meaning import screen_part

OPEN = ("open {x}", "go to {x}", "show {x}", "take me to {x}", "navigate to {x}", "view the {x}")
TAP = ("tap {x}", "press {x}", "click {x}", "select {x}", "choose {x}", "{x}")
ON = ("turn on {x}", "enable {x}", "switch on {x}", "check {x}")
OFF = ("turn off {x}", "disable {x}", "switch off {x}", "uncheck {x}")
SET = ("set {s} to {x}", "change {s} to {x}", "use {x} for {s}", "pick {x} as {s}")
TYPE = ("enter {v} as the {x}", "type {v} in {x}", "fill in the {x} with {v}", "write {v} into {x}")
WHERE = ("{t} in {s}", "{t} on the {s} screen", "in {s}, {t}")
FORM = ("add {x} {v}", "create {x} {v}", "save {x} {v}", "new {x} {v}")
THROUGH = ("{x} and confirm", "{x}, then confirm", "{x} and save it")  # a step whose dialog takes effect with its confirm
PER_ELEMENT = 3  # wordings kept per element and way of naming it
PER_APP = 600  # tasks kept per app (a seeded sample): an app's weight in training does not grow with its size


@dataclass(frozen=True)
class SyntheticTask:
    text: str
    answers: frozenset[str]  # element ids, any of which is right
    kind: str  # label | effect | path | role | form | confirm


def tasks_of_app(contexts: list[ScreenContext], seed: int = 0) -> list[SyntheticTask]:
    """The app's synthetic tasks, deterministic for a seed."""
    rng = random.Random(f"{seed}|{min((c.package for c in contexts), default='')}")
    leads_to: dict[str, set[str]] = {}  # destination screen → elements seen to lead there
    for ctx in contexts:
        for eid, dests in ctx.destinations.items():
            for d in dests:
                if d.screen_id != ctx.id:
                    leads_to.setdefault(d.screen_id, set()).add(eid)
    confirm_of = {c.id: e.id for c in contexts for e in c.elements if head(label_of(e)).lower() in CONFIRM_WORDS}
    values = [head(label_of(e)) for c in contexts for e in c.elements if 0 < len(head(label_of(e))) <= 20]
    out: list[SyntheticTask] = []
    for ctx in contexts:
        screen = screen_part(ctx)
        # A dialog or form with a confirm button: a choice or an entry on it takes effect with that button,
        # so a task that asks for the choice or the entry ends on it (the generic UI convention).
        ok = next((e for e in ctx.elements if head(label_of(e)).lower() in CONFIRM_WORDS), None)
        for e in ctx.elements:
            label = head(label_of(e))
            if label.lower() in BACK_WORDS:
                continue
            own = frozenset({e.id})
            texts: list[tuple[str, frozenset[str], str]] = []
            role = role_of(e)
            done = frozenset({ok.id}) if ok is not None and ok.id != e.id else own
            if label and role == "toggle":
                texts += [(t.format(x=label), own, "role") for t in ON + OFF]
                texts += [(t.format(s=screen, x=label), done, "role") for t in SET]
            elif label and role == "input":
                value = rng.choice(values) if values else "text"
                texts += [(t.format(v=f"'{value}'", x=label.lower()), own, "role") for t in TYPE]
                if ok is not None:
                    texts += [(t.format(x=screen.lower(), v=f"'{value}'"), done, "form") for t in FORM]
            elif label:
                texts += [(t.format(x=label), own, "label") for t in TAP]
            if label:
                texts += [(w.format(t=rng.choice(TAP).format(x=label), s=screen), own, "label") for w in WHERE]
            for d in [d for d in ctx.destinations.get(e.id, []) if d.screen_id != ctx.id][:1]:
                title = head(humanize(d.title))
                if title and title.lower() != label.lower():
                    texts += [(t.format(x=title), frozenset(leads_to[d.screen_id]), "effect") for t in OPEN]
            confirms = frozenset(confirm_of[d.screen_id] for d in ctx.destinations.get(e.id, [])
                                 if d.screen_id != ctx.id and d.screen_id in confirm_of)
            if label and confirms and label.lower() not in CONFIRM_WORDS:
                texts += [(t.format(x=rng.choice(TAP).format(x=label)), confirms, "confirm") for t in THROUGH]
            for path in ctx.paths[:1]:
                if label:
                    crumbs = " › ".join([*path, label])
                    texts += [(f"go to {crumbs}", own, "path"), (f"{path[-1]}, then {label}", own, "path")]
            by_kind: dict[str, list] = {}
            for t in texts:
                by_kind.setdefault(t[2], []).append(t)
            for kind, items in by_kind.items():
                for text, answers, _ in rng.sample(items, min(PER_ELEMENT, len(items))):
                    out.append(SyntheticTask(text, answers, kind))
    return rng.sample(out, PER_APP) if len(out) > PER_APP else out
