"""Task parameters: alignment of a task text against a stored one, and carrying values (pure logic)."""
from __future__ import annotations

import pytest

from appmem.agent.params import Param, align, substitute, values


@pytest.mark.parametrize("stored, task, used, params", [
    ("call Alice", "call Bob", ["Alice"], [("Alice", "Bob")]),
    ("set an alarm for 6:00", "set an alarm for 7:30", [], [("6:00", "7:30")]),
    ("Add the holidays of United States to the calendar", "Add the holidays of China to the calendar",
     ["More options", "United States"], [("United States", "China")]),
    ("Change Bob's mobile number from '<NUMBER>' to '<PHONE>'",
     "Change Bob's mobile number from '222222' to '12345678900'", ["Bob"],
     [("<NUMBER>", "222222"), ("<PHONE>", "12345678900")]),
    ("change the snooze time to 30 min", "change snooze time to 5 min", [], [("30", "5")]),
    ("print the last picture I took as pic3.jpg", "print the last picture I took as beach.jpg", [],
     [("pic3.jpg", "beach.jpg")]),
    ("Delete contact Bob", "Delete contact Bob", ["Bob"], []),
])
def test_texts_that_differ_only_in_parameters_align(stored, task, used, params):
    assert align(stored, task, used) == [Param(o, n) for o, n in params]


@pytest.mark.parametrize("stored, task, used", [
    ("Create a text note named 'NewTextNote'", "Create a checklist note called 'NewCheckList'", []),
    ("change alarm max reminder duration to 1 minute", "change timer max reminder duration to 5 minutes", []),
    ("Delete contact Bob", "Delete all contacts", ["Bob"]),
    ("turn on increase volume gradually", "turn off increase volume gradually", []),
])
def test_other_verbs_or_objects_do_not_align(stored, task, used):
    assert align(stored, task, used) is None


def test_values_carry_into_typed_texts_and_labels():
    assert substitute("laundry", Param("laundry", "shopping")) == "shopping"
    assert substitute("pic4", Param("pic4.jpg", "beach.jpg")) == "beach"
    assert substitute("1000", Param("1000:473", "800:600")) == "800"
    assert substitute("5 minutes", Param("5", "10")) == "10 minutes"
    assert substitute("Settings", Param("5", "10")) is None
    assert values("resize the photo to '1000:473' as a.jpg") == ["1000:473", "1000", "473", "a.jpg", "a", "jpg"]
