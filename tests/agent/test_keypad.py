"""A number entered on a keypad, on a small synthetic dialer (AutoDroid memory written here, ingested and
summarised on the real stack): a screen with a key for each of the ten digits takes the task's number key by
key, before the target; a month's grid of days (no 0) is no keypad."""
from __future__ import annotations

from appmem.agent.planjson import agent_plan
from tests.agent.conftest import explored_planner

DIALER = "org.example.dialer"
WORDS = ("Zero", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine")
HOME = "<button id=0 text='Dialpad'></button>\n<button id=1>Calendar</button>\n<p id=2>Recents</p>"
KEYS = "\n".join(f"<button id={d + 1} text='{WORDS[d]}'>{d}</button>" for d in range(10))
DIALPAD = f"<button id=0 text='Call number'></button>\n{KEYS}\n<button id=11 text='Asterisk'>*</button>"
MONTH = "\n".join(f"<button id={d}>{d}</button>" for d in range(1, 31)) + "\n<p id=40>July</p>"
EXPLORATION = [(HOME, 0, None), (DIALPAD, 3, None), (DIALPAD, 9, None), (HOME, 1, None), (MONTH, 9, None),
               (MONTH, -1, None)]


def test_a_number_is_entered_key_by_key_on_a_keypad_and_nowhere_else(store, settings, tmp_path):
    with explored_planner(store, settings, tmp_path, DIALER, EXPLORATION) as dialer:
        plan = agent_plan(dialer.plan("Open dialpad and call 911", [DIALER])).model_dump()
        assert [((s["element"] or {}).get("content_desc"), s["action"], s["why"]) for s in plan["steps"]] == [
            ("Dialpad", "tap", "route"), ("Nine", "tap", "value"), ("One", "tap", "value"), ("One", "tap", "value"),
            ("Call number", "tap", "target")], plan["steps"]
        graph = dialer.graph([DIALER])
        screens = {e.screen_id for e in graph.elements.values() if e.text in ("7", "30")}
        assert len(screens) == 2 and sorted(bool(graph.screen_kinds(s).keys) for s in screens) == [False, True]
