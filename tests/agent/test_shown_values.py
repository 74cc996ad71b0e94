"""Values a screen already shows, on small synthetic apps (AutoDroid memory written here, ingested and summarised
on the real stack): a field already holding the task's value is not typed again and its form's confirm keeps
it; a time a dialog already shows is confirmed, not set again; the field showing the X of "from X to Y" gets Y
though memory keeps X scrubbed of personal data."""
from __future__ import annotations

from appmem.agent.planjson import agent_plan
from appmem.agent.screenwork import clock_time, same_value
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
# Beside each field, a spinner shows its type; each opens the list of types with the one shown checked.
EDIT = ("<input id=0>Bob</input>\n<input id=1>222222</input>\n<button id=2>Mobile</button>\n"
        "<input id=3>bob@example.org</input>\n<button id=4>Home</button>\n<button id=5>Save</button>\n"
        "<button id=6>Cancel</button>")
PHONE_TYPES = ("<checkbox id=0 checked=True>Mobile</checkbox>\n<checkbox id=1 checked=False>Home</checkbox>\n"
               "<checkbox id=2 checked=False>Pager</checkbox>")
MAIL_TYPES = ("<checkbox id=0 checked=True>Home</checkbox>\n<checkbox id=1 checked=False>Work</checkbox>\n"
              "<checkbox id=2 checked=False>Mobile</checkbox>\n<checkbox id=3 checked=False>Other</checkbox>")
CONTACTS_EXPLORATION = [(PEOPLE, 0, None), (PERSON, 1, None), (EDIT, 2, None), (PHONE_TYPES, 0, None),
                        (EDIT, 4, None), (MAIL_TYPES, 0, None), (EDIT, 6, None), (PERSON, -1, None)]


def test_the_field_showing_the_old_value_gets_the_new_one_though_memory_keeps_it_scrubbed(store, settings, tmp_path):
    with explored_planner(store, settings, tmp_path, CONTACTS, CONTACTS_EXPLORATION) as people:
        assert any("<NUMBER>" in e.text for e in people.graph([CONTACTS]).elements.values())  # what memory keeps
        plan = agent_plan(people.plan("Change Bob's number from '222222' to '12345678'", [CONTACTS])).model_dump()
        typed = [s for s in plan["steps"] if s["action"] == "input"]
        assert [(s["element"]["text"], s["input"]) for s in typed] == [("222222", "12345678")], plan["steps"]
        assert typed[0]["element"]["locators"][0] == "//android.widget.EditText[@text='222222']"
        assert plan["steps"][-1]["element"]["label"] == "Save"


def test_a_choice_the_form_shows_made_is_left_as_it_is(store, settings, tmp_path):
    """"Mobile number": the form shows its number's type Mobile already (its spinner's list has it checked); the
    plan changes no type, neither the number's nor another field's, to say "mobile"."""
    with explored_planner(store, settings, tmp_path, CONTACTS, CONTACTS_EXPLORATION) as people:
        plan = agent_plan(people.plan("Change Bob's mobile number from '222222' to '12345678'", [CONTACTS]))
        steps = [(s.action, s.element.label if s.element else "", s.input) for s in plan.steps]
        assert steps[-2:] == [("input", "", "12345678"), ("tap", "Save", "")], steps
        assert [label for _, label, _ in steps] == ["Bob", "Edit contact", "", "Save"], steps


def test_a_shown_value_is_the_task_value_by_its_meaning_not_its_spelling():
    """'05:00' on a timer is 5:00, '7:00 PM' is 19:00, '07' is 7; a different time or number is not."""
    assert same_value("05:00", "5:00") and same_value("7:00 PM", "19:00") and same_value(" 07 ", "7")
    assert same_value("Mobile", "mobile") and not same_value("5:00", "5:01") and not same_value("²", "2")
    assert clock_time("12:30 am") and not clock_time("Diary") and not clock_time("1000")
