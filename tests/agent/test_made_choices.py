"""A choice the memory shows already made is left alone, on a small synthetic notes app (AutoDroid memory
written here, ingested and summarised on the real stack): a form whose kind the task names, already checked,
is filled and confirmed without tapping the kind (a tap on a checked box unchecks it); a kind not yet
checked is chosen."""
from __future__ import annotations

import pytest

from appmem.agent.planjson import agent_plan
from appmem.agent.planner import Planner
from tests.agent.conftest import explored_planner

NOTES = "org.example.jotter"
MAIN = "<button id=0>Create a new note</button>\n<button id=1 text='More options'></button>\n<p id=2>Groceries</p>"
FORM = ("<p id=0>Add a new note</p>\n<input id=1>Label</input>\n<checkbox id=2 checked=True>Text note</checkbox>\n"
        "<checkbox id=3 checked=False>Checklist</checkbox>\n<button id=4>Cancel</button>\n<button id=5>OK</button>")
MENU = "<button id=0>Settings</button>\n<button id=1>About</button>"
NOTE = "<p id=0>Groceries</p>\n<input id=1>Insert text here</input>"

# Each record's action leads to the next record's state.
EXPLORATION = [(MAIN, 0, None), (FORM, 1, "Holiday"), (FORM, 5, None), (NOTE, -1, None), (MAIN, 1, None),
               (MENU, 1, None), (MAIN, 0, None), (FORM, 4, None), (MAIN, -1, None)]


@pytest.fixture(scope="module")
def planner(store, settings, tmp_path_factory):
    with explored_planner(store, settings, tmp_path_factory.mktemp("jotter"), NOTES, EXPLORATION) as planner:
        yield planner


def steps(planner: Planner, task: str) -> list[tuple[str, str, str]]:
    return [(s["action"], (s["element"] or {}).get("label", ""), s["input"])
            for s in agent_plan(planner.plan(task, [NOTES])).model_dump()["steps"]]


def test_a_kind_already_checked_is_not_tapped(planner):
    assert steps(planner, "create a text note named 'Packing list'") == [
        ("tap", "Create a new note", ""), ("input", "Label", "Packing list"), ("tap", "OK", "")]


def test_a_kind_not_yet_checked_is_chosen(planner):
    got = steps(planner, "create a checklist named 'Packing list'")
    assert ("tap", "Checklist", "") in got and ("input", "Label", "Packing list") in got, got
    assert ("tap", "Text note", "") not in got, got
