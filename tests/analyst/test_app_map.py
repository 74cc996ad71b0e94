"""The app map page (/apps/{package}/map) in a real headless Chromium over the shared data: it loads,
shows one node per screen, clicking a node lists that screen's elements, and the planner's route
between two screens is highlighted. A screenshot goes to test-output/app_map.png."""
from __future__ import annotations

import json
import threading
import time
import urllib.request
from pathlib import Path

import pytest
import uvicorn
from fastapi import FastAPI, Header, HTTPException

from appmem.analyst.map import map_router
from appmem.graph.screens import screen_of
from appmem.ingest.droidbot import read_recording, recording_trace
from tests.conftest import DROIDBOT, REPO, free_port
from tests.shared_data import LAUNCHER_RECORDING, uses

APP = "de.szalkowski.activitylauncher"
OUTPUT = REPO / "test-output"
KEY = "map-test-key"
CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")


@pytest.fixture(scope="module")
@uses(LAUNCHER_RECORDING)
def served(shared_graph):
    """The shared recording in the graph and the map router in a small FastAPI app under uvicorn."""
    store = shared_graph.hold(LAUNCHER_RECORDING)
    trace = recording_trace(read_recording(DROIDBOT / APP))
    app = FastAPI()
    app.include_router(map_router(lambda key: store, require_test_key))
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    own = {screen_of(s, APP, trace.app_version).id for s in trace.states.values() if s.package == APP}
    yield {"url": f"http://127.0.0.1:{port}", "screens": own, "store": store}
    server.should_exit = True
    thread.join(10)


def require_test_key(authorization: str = Header("")) -> None:
    """Stands for the API's `plan` scope (tests/test_crowd.py checks the real one): the page must send it."""
    if authorization != f"Bearer {KEY}":
        raise HTTPException(401, "missing API key")


def get(url: str, key: str | None = KEY) -> tuple[int, bytes]:
    try:
        request = urllib.request.Request(url, headers={"Authorization": f"Bearer {key}"} if key else {})
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status, reply.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def test_the_map_data_needs_the_key_the_page_sends(served):
    assert get(f"{served['url']}/apps/{APP}/map.json", key=None)[0] == 401
    assert get(f"{served['url']}/apps/{APP}/map", key=None)[0] == 200  # the page itself holds no data


def test_map_json_has_a_node_per_screen_with_thumbnails(served):
    status, body = get(f"{served['url']}/apps/{APP}/map.json")
    data = json.loads(body)
    assert status == 200 and {s["id"] for s in data["screens"]} == served["screens"]
    assert all(s["thumbnail"].startswith("data:image/svg+xml") for s in data["screens"])
    assert data["transitions"] and all(0 < t["reliability"] <= 1 and t["label"] for t in data["transitions"])
    ids = {s["id"] for s in data["screens"]}
    assert all(t["source"] in ids and t["target"] in ids for t in data["transitions"])
    status, body = get(f"{served['url']}/apps/no.such.app/map.json")
    assert status == 404 and b"no.such.app" in body


def test_the_map_takes_an_apps_short_name_as_the_api_does(served):
    """The page at /apps/activitylauncher/map asks for activitylauncher's data by the name it was given."""
    by_package, by_name = (json.loads(get(f"{served['url']}/apps/{name}/map.json")[1]) for name in (APP, "activitylauncher"))
    assert by_name == by_package and by_name["package"] == APP
    screen = sorted(served["screens"])[0]
    assert get(f"{served['url']}/apps/ActivityLauncher/screens/{screen}.json")[0] == 200


@pytest.fixture(scope="module")
def browser():
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        pytest.skip("Chromium missing: run scripts/setup-browser (apt-get install chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1400,900",
                 "--disable-dev-shm-usage"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    yield driver
    driver.quit()


def wait_for(driver, script: str, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = driver.execute_script(script)
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {script!r}; page error: "
                         f"{driver.execute_script('return window.appmemMap && window.appmemMap.error')}")


def test_page_shows_every_screen_and_a_click_lists_its_elements(served, browser):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    browser.get(f"{served['url']}/apps/{APP}/map#key={KEY}")
    wait_for(browser, "return window.appmemMap && window.appmemMap.ready")
    assert int(browser.find_element(By.ID, "count").text) == len(served["screens"])
    assert browser.execute_script("return appmemMap.cy.nodes().length") == len(served["screens"])

    # A real mouse click on the node with the most elements, where Cytoscape drew it.
    node_id, x, y = browser.execute_script(
        "const n = appmemMap.cy.nodes().max((n) => n.data('elements')).ele; n.scratch('_t', 1);"
        "appmemMap.cy.center(n); const p = n.renderedPosition(); return [n.id(), p.x, p.y];")
    canvas = browser.find_element(By.ID, "cy")
    size = canvas.size
    ActionChains(browser).move_to_element_with_offset(canvas, int(x - size["width"] / 2),
                                                      int(y - size["height"] / 2)).click().perform()
    wait_for(browser, f"return document.getElementById('details').dataset.screen === '{node_id}'")
    shown = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#details li")]
    expected = served["store"].read("map_screen", package=APP, screen_id=node_id)[0]["elements"]
    assert len(shown) == len(expected) > 0
    assert all(e["label"] in line for e, line in zip(expected, shown) if e["label"])
    OUTPUT.mkdir(exist_ok=True)
    browser.save_screenshot(str(OUTPUT / "app_map.png"))
    assert (OUTPUT / "app_map.png").stat().st_size > 10_000


def test_picking_two_screens_shows_the_planners_route(served, browser):
    from selenium.webdriver.common.by import By

    store = served["store"]
    top = store.read("analyst_app_screens", package=APP)[0]["screen"]
    data = json.loads(get(f"{served['url']}/apps/{APP}/map.json")[1])
    # A screen two or more hops away inside the app, if any; else one hop.
    far = None
    for target in sorted(served["screens"] - {top}):
        hops = json.loads(get(f"{served['url']}/apps/{APP}/route?source={top}&target={target}")[1])["hops"]
        if hops and (far is None or len(hops) > len(far[1])):
            far = (target, hops)
    assert far, "no route from the busiest screen to any other"
    status, body = get(f"{served['url']}/apps/com.nobody.at.all/route?source={top}&target={far[0]}")
    assert status == 404 and b"com.nobody.at.all" in body  # another app's screens are no route of this one
    browser.get(f"{served['url']}/apps/{APP}/map#key={KEY}")
    wait_for(browser, "return window.appmemMap && window.appmemMap.ready")
    browser.execute_script(f"document.getElementById('from').value = '{top}';"
                           f"document.getElementById('to').value = '{far[0]}';")
    browser.find_element(By.ID, "route-button").click()
    wait_for(browser, "return window.appmemMap.route !== null")
    steps = browser.find_elements(By.CSS_SELECTOR, "#route li")
    assert len(steps) == len(far[1])
    highlighted = browser.execute_script("return appmemMap.cy.edges('.route').length")
    assert highlighted >= len(far[1]) and len(data["screens"]) > 0
    browser.save_screenshot(str(OUTPUT / "app_map_route.png"))


def test_cytoscape_and_the_guide_are_served(served):
    status, body = get(f"{served['url']}/static/map/cytoscape.min.js")
    assert status == 200 and b"cytoscape" in body[:2000].lower()
    status, body = get(f"{served['url']}/guides/appmem.html")
    assert status == 200 and b'<article class="guide">' in body
    assert get(f"{served['url']}/static/map/../../etc/passwd")[0] == 404


def test_thumbnails_escape_hostile_ui_text():
    import urllib.parse

    from appmem.agent.appmap import thumbnail

    svg = urllib.parse.unquote(thumbnail([{"bounds": [0, 0, 500, 100], "class_name": "android.widget.Button",
                                           "label": '<script>alert(1)</script>"&'},
                                          {"bounds": None, "class_name": "x", "label": "no bounds"}]))
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    assert svg.count("<rect") == 2  # the frame and the one element with bounds
