"""Runs that come back from agents that see only pixels, on the real stack: a run trace whose steps carry
screenshots instead of dumps, posted to the API and ingested end to end by a Celery ingest worker, which
locates each screenshot among the remembered screens and takes the remembered element under the tap.
The memory is Acrylic Paint's DroidBot recording; the screenshots are the device's own of recorded states,
and each step is one the recording made (its before and after screens, the tapped view's centre)."""
from __future__ import annotations

import base64
from dataclasses import replace

import pytest

from appmem.agent.locate import locate
from appmem.contract.client import ApiClient, ApiError
from appmem.formats.uixml import shown_views
from appmem.ingest.droidbot import read_json, state_from_droidbot
from tests.api.conftest import ACRYLIC
from tests.api.test_crowd import key
from appmem.twins.app import TwinApp
from tests.conftest import DROIDBOT

STATES = DROIDBOT / ACRYLIC / "states"
CANVAS = "2023-10-19_024846"  # the canvas, its toolbar's Erase and More options
ERASER = "2023-10-19_024856"  # the eraser's size dialog, which Erase opened
MENU = "2023-10-19_024931"  # the More options menu
ERASE_AT = [888, 84]  # the centre of the Erase button ([816, 12, 960, 156] in the recording)
MORE_AT = [1020, 84]  # the centre of More options ([960, 12, 1080, 156])
VERSION = TwinApp.from_droidbot(DROIDBOT / ACRYLIC).version  # the version the memory was imported under


def png(moment: str) -> str:
    return base64.b64encode((STATES / f"screen_{moment}.jpg").read_bytes()).decode("ascii")


def dumped(acrylic_memory, moment: str) -> str:
    """The remembered screen the moment's view tree, read as a dump, is located on: the truth here."""
    path = STATES / f"state_{moment}.json"
    state, _ = state_from_droidbot(read_json(path), str(path))
    dump = replace(state, views=shown_views(state.views), activity="", state_id="")
    return locate(acrylic_memory.store, ACRYLIC, dump, acrylic_memory.planner().graph([ACRYLIC]))["screen_id"]


def pixel_run(steps: list[tuple[str, list[int], str]], started: str, status: str = "done") -> dict:
    """A run trace of taps seen only in screenshots: (before moment, tap, after moment) per step."""
    return {"format": "appmem-run/1", "task": "open the eraser", "package": ACRYLIC, "app_version": VERSION,
            "device": "pixel-agent", "started": started, "ended": started, "status": status,
            "steps": [{"index": i, "action": "tap", "before_png": png(before), "after_png": png(after), "tap": tap}
                      for i, (before, tap, after) in enumerate(steps)]}


def edges(acrylic_memory, source: str, target: str) -> list[dict]:
    return [e for e in acrylic_memory.store.read("planner_app_transitions", packages=[ACRYLIC])
            if e["source"] == source and e["target"] == target]


def test_a_run_seen_only_in_screenshots_counts_on_the_edge_the_recording_took(acrylic_server, acrylic_memory, keys):
    canvas, eraser = dumped(acrylic_memory, CANVAS), dumped(acrylic_memory, ERASER)
    before = edges(acrylic_memory, canvas, eraser)
    assert before and all(not e["crowd_only"] for e in before)  # the recording took it: an import's edge
    with ApiClient(acrylic_server, key(keys, "contribute", "pixel-agent")) as api:
        status = api.wait_trace(api.contribute(pixel_run([(CANVAS, ERASE_AT, ERASER)], "2026-07-01T00:00:00Z"))
                                .trace_id, 180).model_dump()
    assert status["status"] == "done", status
    report = status["report"]
    assert report["pixel_steps"] == 1 and report["unmatched_steps"] == [] and report["task"]
    after = edges(acrylic_memory, canvas, eraser)
    erase = [e for e in after if e["element_id"] in {b["element_id"] for b in before}]
    # the one step is one contributor's success on that edge, beside the import's own count
    assert sum(e["contributed_successes"] for e in erase) == sum(e["contributed_successes"] for e in before) + 1


def test_a_shortcut_seen_only_in_screenshots_needs_a_quorum_of_keys(acrylic_server, acrylic_memory, keys, settings):
    """More options does not open the eraser's dialog: one key's screenshots saying so are a crowd-only edge
    that no plan takes, until APPMEM_TRUST_QUORUM keys report it."""
    canvas, eraser = dumped(acrylic_memory, CANVAS), dumped(acrylic_memory, ERASER)
    recorded = {e["element_id"] for e in edges(acrylic_memory, canvas, eraser)}
    run = pixel_run([(CANVAS, MORE_AT, ERASER)], "2026-07-02T00:00:00Z")

    def shortcut() -> list[dict]:
        return [e for e in edges(acrylic_memory, canvas, eraser) if e["element_id"] not in recorded]

    witnesses = [keys.create(f"pixel-witness-{n}", "contribute", 1000) for n in range(settings.trust_quorum)]
    for n, (_, secret) in enumerate(witnesses):
        with ApiClient(acrylic_server, secret) as api:
            status = api.wait_trace(api.contribute(run).trace_id, 180).model_dump()
        assert status["status"] == "done" and status["report"]["pixel_steps"] == 1, status
        found = shortcut()
        assert len(found) == 1 and found[0]["crowd_only"]
        assert found[0]["crowd_trusted"] == (n + 1 >= settings.trust_quorum) == found[0]["trusted"]
    # a purge of one witness takes its vote back: short of a quorum again
    with ApiClient(acrylic_server, key(keys, "admin")) as api:
        assert api.http.delete(f"/v1/contributors/{witnesses[0][0].id}").status_code == 200
    assert all(not e["trusted"] for e in shortcut())


def test_a_screenshot_of_no_remembered_screen_or_a_tap_on_nothing_is_kept_out_with_its_reason(
        acrylic_server, acrylic_memory, keys):
    blank = base64.b64encode(_blank_png()).decode("ascii")
    run = pixel_run([(CANVAS, ERASE_AT, ERASER), (ERASER, [540, 2000], CANVAS)], "2026-07-03T00:00:00Z")
    run["steps"].append({**run["steps"][0], "index": 2, "before_png": blank})
    with ApiClient(acrylic_server, key(keys, "contribute", "pixel-agent-2")) as api:
        status = api.wait_trace(api.contribute(run).trace_id, 180).model_dump()
    assert status["status"] == "done", status
    reasons = {u["index"]: u["reason"] for u in status["report"]["unmatched_steps"]}
    assert "no remembered element" in reasons[1] and "under its tap point" in reasons[1]
    assert "shows no remembered screen" in reasons[2]
    assert status["report"]["pixel_steps"] == 1 and status["report"]["task"] is None  # a demonstration with a gap


@pytest.mark.parametrize("change, problem", [
    ({"before_png": base64.b64encode(b"<hierarchy/>").decode()}, "not a PNG or JPEG"),
    ({"before_png": "%%% not base64"}, "not base64"),
    ({"before_xml": "<hierarchy/>"}, "send one of before_xml"),
    ({"after_png": None}, "send one of after_xml"),
])
def test_a_bad_screenshot_step_is_a_422_naming_it(acrylic_server, keys, change, problem):
    run = pixel_run([(CANVAS, ERASE_AT, ERASER)], "2026-07-04T00:00:00Z")
    run["steps"][0].update(change)
    with ApiClient(acrylic_server, key(keys, "contribute", "pixel-agent-3")) as api:
        with pytest.raises(ApiError) as refused:
            api.contribute(run)
    assert refused.value.status == 422 and problem in str(refused.value) and "Traceback" not in str(refused.value)


def _blank_png() -> bytes:
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (1080, 2340), (255, 255, 255)).save(out, "PNG")
    return out.getvalue()
