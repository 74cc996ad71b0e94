"""Run steps seen in screenshots, without a server: the contract takes one screen per side (a dump or a
screenshot), the element under a tap is the smallest remembered one that takes the action, and a run read
without a screen finder (`appmem import-run`) keeps its screenshot steps out with the reason. The end-to-end
path (API, worker, real screenshots located) is tests/api/test_pixel_runs.py."""
from __future__ import annotations

import base64

import pytest

from appmem.contract.run import RunStep, RunTrace
from appmem.errors import InputFormatError
from appmem.formats.ui import ActionType, Bounds
from appmem.graph.model import Element, Screen
from appmem.ingest.run import Sighting, element_at, run_trace, tap_of, validate_run
from tests.conftest import DROIDBOT

SHOT = DROIDBOT / "anupam.acrylic" / "states" / "screen_2023-10-19_024846.jpg"
DUMP = '<hierarchy><node package="anupam.acrylic" class="android.widget.FrameLayout" bounds="[0,0][1080,1920]"/></hierarchy>'


def png() -> str:
    return base64.b64encode(SHOT.read_bytes()).decode("ascii")


def step(**sides) -> dict:
    return {"index": 0, "action": "tap", "tap": [540, 300], **sides}


def test_each_side_of_a_step_is_one_dump_or_one_screenshot():
    assert RunStep.model_validate(step(before_png=png(), after_xml=DUMP)).from_pixels
    assert not RunStep.model_validate(step(before_xml=DUMP, after_xml=DUMP)).from_pixels
    for sides, named in [({"after_xml": DUMP}, "before_xml"), ({"before_xml": DUMP, "before_png": png(),
                                                                 "after_xml": DUMP}, "before_xml")]:
        run = {"task": "t", "package": "anupam.acrylic", "app_version": "1", "device": "d", "started": "2026-01-01",
               "ended": "2026-01-01", "status": "done", "steps": [step(**sides)]}
        with pytest.raises(InputFormatError, match=f"send one of {named}"):
            validate_run(run, "run")


def element(eid: str, bounds: tuple[int, int, int, int], *flags: str) -> Element:
    return Element(id=eid, screen_id="s", key=eid, bounds=Bounds(*bounds), flags=list(flags))


def test_the_element_under_a_tap_is_the_smallest_that_takes_the_action_in_the_screenshots_scale():
    row = element("row", (0, 200, 1080, 400), "clickable")
    check = element("check", (900, 250, 1000, 350), "checkable")
    pane = element("pane", (0, 0, 1080, 1920), "scrollable")
    seen = Sighting(Screen("s", "p", "", "", ""), [pane, row, check], scale=720 / 1080)
    at = (950 * 720 / 1080, 300 * 720 / 1080)  # the check box, in a 720-wide screenshot's pixels
    assert element_at(seen, *at, ActionType.TAP) is row  # a tap takes the clickable row, not the check box
    assert element_at(seen, *at, ActionType.SCROLL) is pane
    assert element_at(seen, *at, ActionType.LONG_TAP) is check  # none takes it: the smallest there
    assert element_at(seen, 10, 1900 * 720 / 1080 + 50, ActionType.TAP) is None  # below every element


def test_a_tap_is_the_steps_own_point_else_its_elements_centre():
    assert tap_of(RunStep.model_validate(step(before_png=png(), after_png=png()))) == (540, 300)
    plain = {k: v for k, v in step(before_png=png(), after_png=png()).items() if k != "tap"}
    assert tap_of(RunStep.model_validate(plain)) is None
    boxed = {**plain, "element": {"bounds": [100, 200, 300, 400]}}
    assert tap_of(RunStep.model_validate(boxed)) == (200, 300)


def test_without_a_finder_screenshots_are_checked_and_their_steps_kept_out_with_the_reason():
    run = RunTrace.model_validate({"task": "t", "package": "anupam.acrylic", "app_version": "1", "device": "d",
                                   "started": "2026-01-01T00:00:00Z", "ended": "2026-01-01T00:00:00Z",
                                   "status": "done", "steps": [step(before_png=png(), after_xml=DUMP)]})
    imported = run_trace(run)
    assert not imported.trace.steps and imported.task is None
    assert "located only by the API's ingest worker" in imported.unmatched[0]["reason"]
    broken = run.model_copy(update={"steps": [run.steps[0].model_copy(update={"before_png": png()[:4000]})]})
    with pytest.raises(InputFormatError, match="truncated"):
        run_trace(broken)
