"""A field already holding the task's value, on a small synthetic photo viewer (AutoDroid memory written here,
ingested and summarised on the real stack): it is not typed again, and its form's confirm keeps it."""
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
