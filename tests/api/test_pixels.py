"""Screens from pixels through every front door: the API (locate, plan, hints from a base64 screenshot, and
each kind of bad screenshot a clear 4xx), the CLI (`--screenshot`), and MCP. The
memory is Activity Launcher's DroidBot recording; the screenshot is the device's own of a recorded state."""
from __future__ import annotations

import base64
import io
import json
import subprocess
import sys
from dataclasses import replace

import anyio
import pytest
from fastapi.testclient import TestClient
from mcp import Client
from PIL import Image

from appmem import generations
from appmem.agent.locate import locate
from appmem.agent.service import Service
from appmem.api.app import create_app
from appmem.api.mcp_server import build_mcp
from appmem.formats.uixml import shown_views
from appmem.ingest.droidbot import read_json, state_from_droidbot
from appmem.semantic.pipeline import summarize
from appmem.semantic.summaries import DeterministicSummarizer
from tests.conftest import DROIDBOT, REPO
from tests.shared_data import LAUNCHER_RECORDING, uses

APP = "de.szalkowski.activitylauncher"
# A dialog (CANCEL / OK) of the recording, with the screenshot the device took of it
SHOT = DROIDBOT / APP / "states" / "screen_2023-10-19_094500.jpg"


@pytest.fixture(scope="module")
@uses(LAUNCHER_RECORDING)
def launcher(shared_graph, settings):
    store = shared_graph.hold(LAUNCHER_RECORDING)
    service = Service.open(settings)
    service.vectors.delete_packages([p for p in service.vectors.packages() if p != APP])
    summarize(store, service.vectors, service.embedder, DeterministicSummarizer(settings.risky_words), [APP])
    generations.bump_from(settings, [APP])
    yield service
    service.close()


@pytest.fixture(scope="module")
def api(settings, launcher):
    with TestClient(create_app(settings, launcher), raise_server_exceptions=False) as client:
        yield client


def picture() -> str:
    return base64.b64encode(SHOT.read_bytes()).decode("ascii")


def dumped(service: Service):
    """Where the same moment's view tree, read as a dump, is located (the dump path)."""
    path = SHOT.with_name(SHOT.name.replace("screen_", "state_")).with_suffix(".json")
    state, _ = state_from_droidbot(read_json(path), str(path))
    dump = replace(state, views=shown_views(state.views), activity="", state_id="")
    return locate(service.store, APP, dump, service.planner().graph([APP]))


def test_locate_plan_and_hints_from_a_screenshot_through_the_api(api, bearer, launcher):
    auth = bearer()
    located = api.post("/v1/locate", headers=auth, json={"app": APP, "screenshot": picture()})
    assert located.status_code == 200, located.text
    found = located.json()
    assert found["match"] == "similar" and found["screen_id"] == dumped(launcher)["screen_id"]
    plan = api.post("/v1/plan", headers=auth, json={"task": "OK", "app": APP, "screenshot": picture()})
    assert plan.status_code == 200, plan.text
    plan = plan.json()
    assert plan["start"]["screen_id"] == found["screen_id"]
    first = plan["steps"][0]
    assert first["screen_id"] == found["screen_id"] and first["element"]["text"] == "OK"
    x, y = first["element"]["tap"]  # in the screenshot's pixels: inside the remembered button
    left, top, right, bottom = first["element"]["bounds"]
    assert left <= x < right and top <= y < bottom
    hints = api.post("/v1/hints", headers=auth, json={"task": "OK", "app": APP, "screenshot": picture()})
    assert hints.status_code == 200 and hints.json()["screen_id"] == found["screen_id"]


def test_a_smaller_phones_screenshot_is_located_and_tapped_in_its_own_pixels(launcher):
    image = Image.open(SHOT)
    out = io.BytesIO()
    image.resize((720, 1560)).save(out, "PNG")
    small = base64.b64encode(out.getvalue()).decode("ascii")
    assert launcher.locate(APP, screenshot=small).screen_id == dumped(launcher)["screen_id"]
    step = launcher.plan("OK", APP, screenshot=small).steps[0]
    left, top, right, bottom = (round(v * 720 / 1080) for v in step.element.bounds)
    assert left <= step.element.tap[0] < right and top <= step.element.tap[1] < bottom


def bomb() -> bytes:
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 100_000, 100_000, 8, 2, 0, 0, 0)) \
        + chunk(b"IDAT", zlib.compress(b"")) + chunk(b"IEND", b"")


def tiny() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (1, 1)).save(out, "PNG")
    return out.getvalue()


@pytest.mark.parametrize("screenshot, status, problem", [
    (base64.b64encode(b"<hierarchy/>").decode(), 422, "not a PNG or JPEG"),
    (base64.b64encode(SHOT.read_bytes()[:5000]).decode(), 422, "truncated"),
    (base64.b64encode(bomb()).decode(), 422, "pixels"),
    (base64.b64encode(tiny()).decode(), 422, "too small"),
    ("%%% not base64", 422, "not base64"),
    ("A" * (20 * 1024 * 1024), 413, ""),  # a 20 MB upload: past the body limit before anything reads it
])
def test_bad_screenshots_get_a_clear_4xx(api, bearer, screenshot, status, problem):
    answer = api.post("/v1/locate", headers=bearer(), json={"app": APP, "screenshot": screenshot})
    assert answer.status_code == status, answer.text
    assert problem in answer.text and "Traceback" not in answer.text


def test_a_screenshot_without_its_app_is_refused_naming_why(api, bearer):
    answer = api.post("/v1/locate", headers=bearer(), json={"screenshot": picture()})
    assert answer.status_code == 422 and "names no app" in answer.text


def test_the_cli_locates_and_plans_from_a_screenshot_file(launcher, stack_env, tmp_path):
    """The CLI on the local stores (their read-only snapshots: this process owns the vector folder), reading
    the screenshot itself: no server's timeout stands between a slow machine and the answer."""
    env = {k: v for k, v in stack_env.items() if k not in ("APPMEM_SERVER", "APPMEM_KEY")}

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "appmem.cli", *args], cwd=REPO, env=env,
                              capture_output=True, text=True, timeout=600)

    out = cli("locate", "--app", APP, "--screenshot", str(SHOT), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["screen_id"] == dumped(launcher)["screen_id"]
    out = cli("plan", "OK", "--app", APP, "--screenshot", str(SHOT), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["steps"][0]["element"]["tap"]
    text = tmp_path / "screen.png"
    text.write_text("not a picture")
    out = cli("locate", "--app", APP, "--screenshot", str(text))
    assert out.returncode != 0 and "not a PNG or JPEG" in out.stderr and "Traceback" not in out.stderr
    out = cli("plan", "OK", "--screenshot", str(SHOT))
    assert out.returncode != 0 and "--app" in out.stderr and "Traceback" not in out.stderr


def test_mcp_tools_take_a_screenshot(launcher):
    async def call() -> dict:
        async with Client(build_mcp(lambda: launcher)) as client:
            result = await client.call_tool("locate", {"app": APP, "screenshot": picture()})
            assert not result.is_error, result.content
            bad = await client.call_tool("locate", {"app": APP, "screenshot": base64.b64encode(b"xx").decode()})
            assert bad.is_error and "not a PNG or JPEG" in str(bad.content)
            return result.structured_content

    assert anyio.run(call)["screen_id"] == dumped(launcher)["screen_id"]
