"""When the plan's last step counts as taken (runtime.outcome.took_effect), on dumps of a recorded app (a twin's
rendering of DroidBot states; no device needed)."""
from __future__ import annotations

from pathlib import Path

from appmem.runtime.move import Move
from appmem.runtime.outcome import outcome, took_effect
from appmem.runtime.screen import LiveScreen
from appmem.twins.app import TwinApp
from appmem.twins.render import hierarchy_xml

DROIDBOT = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "droidbot"


def test_the_last_step_is_taken_only_on_a_view_showing_its_text_and_when_the_app_reacted():
    app = TwinApp.from_droidbot(DROIDBOT / "anupam.acrylic")
    first, other = list(app.states)[:2]
    before, after = hierarchy_xml(app.states[first]), hierarchy_xml(app.states[other])
    step = Move("tap", {"text": "About", "content_desc": "", "label": "About"})

    def record(acted_text: str, after_xml: str) -> dict:
        return {"element": {"text": acted_text, "content_desc": ""}, "before_xml": before, "after_xml": after_xml,
                "after_activity": app.states[other].activity}

    assert took_effect(step, record("About", after))
    assert not took_effect(step, record("Settings", after))  # a locator found another view in its place
    assert not took_effect(step, record("About", before))  # the screen did not change
    assert not took_effect(Move.back(), record("", after))
    unlabelled = Move("tap", {"text": "", "content_desc": "", "label": "menu"})
    assert took_effect(unlabelled, record("", after))  # nothing to compare: the locator's view is it


def test_leaving_the_app_is_a_crash_unless_memory_saw_the_step_go_to_that_app():
    """A step's outcome when the app leaves the foreground: as planned when memory's edge went to the app now
    in front (the home screen, a share target), else a crash (a failure on the edge when the trace is ingested)."""
    app_screen = LiveScreen("org.example.app", ".Main", "<hierarchy/>", {"screen_id": "s1"})
    home = LiveScreen("com.android.launcher3", ".Launcher", "<hierarchy/>", {})
    assert outcome(app_screen, home, "org.example.app", "h1", "com.android.launcher3") == "ok"
    assert outcome(app_screen, home, "org.example.app", "s2", "org.example.app") == "crash"
    assert outcome(app_screen, home, "org.example.app", "s2", "") == "crash"
