"""Values a screen already shows, on small synthetic apps (AutoDroid memory written here, ingested and summarised
on the real stack): a field already holding the task's value is not typed again and its form's confirm keeps
it; a time a dialog already shows is confirmed, not set again; the field showing the X of "from X to Y" gets Y
though memory keeps X scrubbed of personal data."""
from __future__ import annotations

from appmem.agent.planjson import agent_plan
from tests.agent.conftest import explored_planner

BACK = "<button id=9>go back</button>"
VIEWER = "org.example.viewer"
PHOTO = f"<button id=0 text='More options'></button>\n<button id=1 text='Share'></button>\n{BACK}"
MENU = f"<button id=0>Print</button>\n<button id=1>Rename</button>\n{BACK}"
SAVE_AS = "<p id=0>Save as</p>\n<input id=1>pic3.jpg</input>\n<button id=2>SAVE</button>\n<button id=3>Cancel</button>"
# The print dialog proposes the picture's own name.
VIEWER_EXPLORATION = [(PHOTO, 0, None), (MENU, 0, None), (SAVE_AS, 3, None), (PHOTO, -1, None)]


def test_a_field_that_shows_the_value_is_not_typed_again_and_its_form_is_confirmed(store, settings, tmp_path):
    with explored_planner(store, settings, tmp_path, VIEWER, VIEWER_EXPLORATION) as viewer:
        def steps(task: str) -> list[tuple[str, str, str, str]]:
            return [(s["action"], (s["element"] or {}).get("label", ""), s["input"], s["why"])
                    for s in agent_plan(viewer.plan(task, [VIEWER])).model_dump()["steps"]]

        assert steps("print the photo as pic3.jpg") == [
            ("tap", "More options", "", "route"), ("tap", "Print", "", "route"), ("tap", "SAVE", "", "confirm")]
        other = steps("print the photo as pic4.jpg")
        assert other[-2][0] == "input" and other[-2][2:] == ("pic4.jpg", "value") and other[-1][1] == "SAVE", other


CLOCK = "org.example.timer"
TIMERS = "<button id=0>New Timer</button>\n<button id=1>Stopwatch</button>"
# The new-timer dialog shows the duration it proposes; tapping it opens a picker with a field per unit.
NEW_TIMER = ("<button id=0>05:00</button>\n<checkbox id=1 checked=False>Vibrate</checkbox>\n"
             "<button id=2>Cancel</button>\n<button id=3>OK</button>")
PICKER = "<input id=0></input>\n<input id=1></input>\n<button id=2>Cancel</button>\n<button id=3>OK</button>"
CLOCK_EXPLORATION = [(TIMERS, 0, None), (NEW_TIMER, 0, None), (PICKER, 2, None), (NEW_TIMER, 2, None),
                     (TIMERS, -1, None)]


def test_a_time_its_dialog_shows_already_is_confirmed_not_set_again(store, settings, tmp_path):
    with explored_planner(store, settings, tmp_path, CLOCK, CLOCK_EXPLORATION) as clock:
        def steps(task: str) -> list[tuple[str, str, str]]:
            return [(s["action"], (s["element"] or {}).get("label", ""), s["input"])
                    for s in agent_plan(clock.plan(task, [CLOCK])).model_dump()["steps"]]

        assert steps("add a new timer of 5:00") == [("tap", "New Timer", ""), ("tap", "OK", "")]
        other = steps("add a new timer of 7:30")
        assert ("input", "", "7:30") in [(a, "", i) for a, _, i in other] and other[-1][1] == "OK", other


CONTACTS = "org.example.people"
PEOPLE = "<button id=0>Bob</button>\n<button id=1>Alice</button>"
PERSON = "<p id=0>Bob</p>\n<button id=1 text='Edit contact'></button>\n<button id=2>Call</button>"
# The edit form's number field shows what was typed there: the memory keeps it scrubbed (formats/privacy.py).
EDIT = "<input id=0>Bob</input>\n<input id=1>222222</input>\n<button id=2>Save</button>\n<button id=3>Cancel</button>"
CONTACTS_EXPLORATION = [(PEOPLE, 0, None), (PERSON, 1, None), (EDIT, 3, None), (PERSON, -1, None)]


def test_the_field_showing_the_old_value_gets_the_new_one_though_memory_keeps_it_scrubbed(store, settings, tmp_path):
    with explored_planner(store, settings, tmp_path, CONTACTS, CONTACTS_EXPLORATION) as people:
        assert any("<NUMBER>" in e.text for e in people.graph([CONTACTS]).elements.values())  # what memory keeps
        plan = agent_plan(people.plan("Change Bob's number from '222222' to '12345678'", [CONTACTS])).model_dump()
        typed = [s for s in plan["steps"] if s["action"] == "input"]
        assert [(s["element"]["text"], s["input"]) for s in typed] == [("222222", "12345678")], plan["steps"]
        assert typed[0]["element"]["locators"][0] == "//android.widget.EditText[@text='222222']"
        assert plan["steps"][-1]["element"]["label"] == "Save"
