"""App choice from an HTML screen without `--app` reads the screen once and names it in every app by two
hashes (graph/screens.py `screen_id`): the ids must be those of reading it once per app (`screen_of`), on
every recorded DroidTask state, with and without an activity sent by the agent."""
from __future__ import annotations

import pytest
import yaml

from appmem.agent.locate import html_activity, html_reader
from appmem.errors import InputFormatError
from appmem.graph.screens import screen_id, screen_of, signature_parts
from tests.conftest import DROIDTASK

# The DroidTask apps' packages, and packages of other shapes: the id must not depend on which is read first.
PACKAGES = ["com.simplemobiletools.calendar.pro", "com.simplemobiletools.clock", "org.example.app", "a.b"]


def recorded_states() -> list[str]:
    states = []
    for utg in sorted(DROIDTASK.glob("*/utg.yaml")):
        records = yaml.safe_load(utg.read_text(encoding="utf-8"))["records"]
        states += [r["State"] for r in records if isinstance(r.get("State"), str)]
    return list(dict.fromkeys(states))


def test_a_screen_read_once_gets_the_id_it_would_have_read_in_each_app():
    states = recorded_states()
    assert len(states) > 100
    for html in states:
        for activity in (None, "org.example.Sent"):
            read = html_reader(html, activity)
            parts = signature_parts(read(PACKAGES[-1]))
            for package in PACKAGES:
                assert screen_id(package, html_activity(package, activity), parts) == \
                    screen_of(read(package), package, "").id


def test_a_malformed_html_screen_is_refused_once_naming_the_field():
    with pytest.raises(InputFormatError, match="screen_html.*unparsable AutoDroid state"):
        html_reader("<div>no id</div>")
