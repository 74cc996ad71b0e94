"""One control on two screens, and a value a field already shows, on small synthetic apps (AutoDroid memory
written here, ingested and summarised on the real stack): the plan takes the nearer of a control's twins (what
they do is one thing; which screen shows them says how far they are), the words of the app's own name rate no
way through it, a screen is not named after what a field on it holds."""
from __future__ import annotations

from dataclasses import replace

import pytest

from appmem.agent.compose import task_stems
from appmem.agent.planjson import agent_plan
from appmem.agent.planner import Planner
from appmem.agent.screenwork import label
from appmem.agent.taskparse import parse_task
from tests.agent.conftest import explored_planner

CONTACTS = "org.example.contacts"
BACK = "<button id=9>go back</button>"
LIST = ("<button id=0 text='Create new contact'></button>\n<button id=1 text='More options'></button>\n"
        f"<button id=2>Alice</button>\n<button id=3>Bob</button>\n{BACK}")
PAGE = ("<button id=0 text='Edit contact'></button>\n<button id=1 text='Delete'></button>\n"
        f"<button id=2 text='Share'></button>\n{BACK}")
EDIT = ("<input id=0>Bob</input>\n<input id=1>Surname</input>\n<button id=2 text='Save'></button>\n"
        f"<button id=3 text='Delete'></button>\n{BACK}")
ASK = ("<p id=0>Are you sure you want to proceed with the deletion?</p>\n<button id=1>No</button>\n"
       "<button id=2>Yes</button>")
# A contact's page opens its edit form; its Delete was seen to ask first. The edit form's Delete was never tapped.
CONTACTS_EXPLORATION = [
    (LIST, 3, None), (PAGE, 0, None), (EDIT, 9, None), (PAGE, 1, None), (ASK, 1, None), (PAGE, 9, None),
    (LIST, 2, None), (PAGE, 9, None), (LIST, -1, None),
]

@pytest.fixture(scope="module")
def contacts(store, settings, tmp_path_factory):
    with explored_planner(store, settings, tmp_path_factory.mktemp("contacts"), CONTACTS,
                          CONTACTS_EXPLORATION) as planner:
        yield planner


def steps(planner: Planner, task: str, package: str, **options) -> list[tuple[str, str, str, str]]:
    """(action, label, typed text, why) of each step of the plan for `task`, from the app's entry."""
    config = replace(planner.config, **options)
    return [(s["action"], (s["element"] or {}).get("label", ""), s["input"], s["why"])
            for s in agent_plan(planner.plan(task, [package], config=config)).model_dump()["steps"]]


def test_the_plan_takes_the_nearer_twin_of_a_control(contacts):
    """Delete is on the contact's page and on its edit form: the page's is one tap nearer, and the plan does not
    pass the edit form (whose "Edit contact" says a word of the task only because the app is called contacts)."""
    graph = contacts.graph([CONTACTS])
    deletes = [e for e in graph.elements.values() if label(e) == "Delete"]
    assert len({e.screen_id for e in deletes}) == 2
    assert steps(contacts, "delete contact Bob", CONTACTS) == [
        ("tap", "Bob", "", "route"), ("tap", "Delete", "", "target"), ("tap", "Yes", "", "confirm")]


def test_twins_rank_as_the_best_of_them_only_with_the_rule(contacts):
    """The two Deletes score differently (the form shows the contact's name in a field): without
    `twin_rank` (and the ranking's twins) each keeps its own score and the plan detours through the edit form."""
    graph = contacts.graph([CONTACTS])
    ids = {e.id for e in graph.elements.values() if label(e) == "Delete"}
    hits = contacts.index([CONTACTS]).search(contacts.embedder.query("delete contact Bob"), "delete contact Bob",
                                              contacts.config.pool, contacts.config.ranking)
    scores = {h.payload["element_id"]: h.score for h in hits if h.payload.get("element_id") in ids}
    assert len(scores) == 2 and len(set(scores.values())) == 2, scores
    # the ranking's own twins would lend the page's Delete its effect and its rank
    alone = replace(contacts.config.ranking, twins=False, twin_next=False)
    assert steps(contacts, "delete contact Bob", CONTACTS, twin_rank=False, ranking=alone) == [
        ("tap", "Bob", "", "route"), ("tap", "Edit contact", "", "route"), ("tap", "Delete", "", "target"),
        ("tap", "Yes", "", "confirm")]


def test_the_words_of_the_apps_name_rate_no_plan():
    """A plan is rated on the task's words it says, but those naming the app it is planned in."""
    parsed = parse_task("delete contact Bob").in_app([CONTACTS])
    assert task_stems(parsed) == {"delet", "bob"}
    assert task_stems(parse_task("delete contact Bob")) == {"delet", "contact", "bob"}


def test_a_screen_is_not_named_after_what_a_field_on_it_holds(contacts):
    graph = contacts.graph([CONTACTS])
    form = next(e.screen_id for e in graph.elements.values() if e.text == "Surname")
    assert graph.screens[form]["title"] != "Bob"

