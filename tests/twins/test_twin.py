"""App twins: the real adbutils client (and its bundled adb binary) against a
real TwinServer on a loopback port, replaying the shared DroidBot recordings."""
from __future__ import annotations

import io
import os
import subprocess
import threading
import xml.etree.ElementTree as ET
from pathlib import Path

import adbutils
import pytest
from adbutils.errors import AdbTimeout
from PIL import Image

from appmem.errors import DeviceError, InvalidInput
from appmem.formats.ui import ActionType, Bounds, UIState, View
from appmem.twins.adb_server import TwinServer
from appmem.twins.app import LAUNCHER_ACTIVITY, LAUNCHER_PACKAGE, LAUNCHER_STATE, TwinApp
from appmem.twins.device import TwinDevice
from appmem.twins.shell import execute

DROIDBOT = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "droidbot"
ACRYLIC = "anupam.acrylic"
ADFREE = "ch.abertschi.adfree"
HOSTILE_PKG = "org.appmem.hostile"
HOSTILE = ("He said \"hi\" & 'bye' <b>not markup</b> ]]> &amp; \\ \t tab\nnew line\r\n"
           "ünïcødé 中文 עברית 🙂👍🏽 \u200b zero-width " + "x" * 100_000)
SERIALS = [f"twin-{i:04d}" for i in range(1, 5)]


def hostile_app() -> TwinApp:
    views = [
        View(index=0, parent=-1, children=[1, 2], class_name="android.widget.FrameLayout",
             package=HOSTILE_PKG, bounds=Bounds(0, 0, 1080, 1920)),
        View(index=1, parent=0, children=[], class_name="android.widget.TextView", package=HOSTILE_PKG,
             resource_id=f"{HOSTILE_PKG}:id/<\"odd\">", text=HOSTILE, content_desc="desc \"&<>'",
             bounds=Bounds(0, 0, 1080, 400), clickable=True),
        View(index=2, parent=0, children=[], class_name="android.widget.TextView", package=HOSTILE_PKG,
             text="bad\x00chars\x07\ud800here", bounds=Bounds(0, 400, 1080, 800)),
    ]
    state = UIState(package=HOSTILE_PKG, activity=f"{HOSTILE_PKG}.Main", views=views, state_id="hostile-0")
    return TwinApp.from_steps(HOSTILE_PKG, "1.0", {"hostile-0": state}, [])


@pytest.fixture(scope="module")
def apps() -> dict[str, TwinApp]:
    loaded = [TwinApp.from_droidbot(folder) for folder in sorted(DROIDBOT.iterdir()) if folder.is_dir()]
    return {app.package: app for app in loaded + [hostile_app()]}


@pytest.fixture(scope="module")
def fleet(apps) -> dict[str, TwinDevice]:
    return {serial: TwinDevice(serial, apps.values()) for serial in SERIALS}


@pytest.fixture(scope="module")
def server(fleet):
    with TwinServer(fleet) as server:
        yield server


@pytest.fixture(scope="module")
def client(server) -> adbutils.AdbClient:
    return adbutils.AdbClient("127.0.0.1", server.port)


@pytest.fixture
def device(server, client) -> adbutils.AdbDevice:
    server.reset(SERIALS[0])
    return client.device(SERIALS[0])


def dumped_nodes(xml: str) -> list[tuple[str, str, str, str, str]]:
    root = ET.fromstring(xml)
    assert root.tag == "hierarchy"
    return [(n.get("class"), n.get("resource-id"), n.get("text"), n.get("content-desc"), n.get("bounds"))
            for n in root.iter("node")]


def recorded_nodes(state: UIState) -> list[tuple[str, str, str, str, str]]:
    """The visible views of a recorded state in pre-order, as uiautomator would list them."""
    by_index = {v.index: v for v in state.views}
    out: list[tuple[str, str, str, str, str]] = []

    def walk(v: View) -> None:
        if not v.visible:
            return
        b = v.bounds
        out.append((v.class_name, v.resource_id, v.text, v.content_desc,
                    f"[{b.left},{b.top}][{b.right},{b.bottom}]"))
        for c in v.children:
            if c in by_index:
                walk(by_index[c])

    for root in (v for v in state.views if v.parent < 0):
        walk(root)
    return out


def unambiguous(app: TwinApp, kind: ActionType, source: str | None = None) -> list[tuple[str, str, str, str]]:
    """Recorded (source, element key, detail, target) moves of `kind` with one recorded target
    whose element's centre is not also the centre of another, no larger element with a
    recorded action of that kind (a tap there would name both)."""
    out = []
    for (src, signature), targets in app.transitions.items():
        type_, key, detail = signature.split("|", 2)
        if type_ != kind.value or len(set(targets)) != 1 or targets[0] == src or not key or (source and src != source):
            continue
        pv = next((p for p in app.placed[src] if p.key == key), None)
        if pv is None or pv.view.bounds.area == 0:
            continue
        acted = app.acted.get((src, kind), frozenset())
        if not any(p is not pv and p.key in acted and p.view.bounds.center == pv.view.bounds.center
                   and p.view.bounds.area <= pv.view.bounds.area for p in app.placed[src]):
            out.append((src, key, detail, targets[0]))
    return out


def centre(app: TwinApp, state_id: str, key: str) -> tuple[int, int]:
    return next(p for p in app.placed[state_id] if p.key == key).view.bounds.center


def showing(app: TwinApp, state_id: str) -> tuple[str, str]:
    if state_id == LAUNCHER_STATE:
        return LAUNCHER_PACKAGE, LAUNCHER_ACTIVITY
    state = app.states[state_id]
    return state.package, state.activity


def current(d: adbutils.AdbDevice) -> tuple[str, str]:
    info = d.app_current()
    return info.package, info.activity


# ---- server and device basics ------------------------------------------------------------
def test_devices_listed(client):
    assert client.server_version() == 41
    assert [i.serial for i in client.list()] == SERIALS
    infos = client.list(extended=True)
    assert all(i.state == "device" for i in infos)
    assert [i.transport_id for i in infos] == [1, 2, 3, 4]
    assert [d.serial for d in client.device_list()] == SERIALS
    assert client.device(SERIALS[1]).get_state() == "device"
    assert "shell_v2" in client.device(SERIALS[1]).get_features()


def test_unknown_serial_fails(client):
    with pytest.raises(adbutils.AdbError, match="not found"):
        client.device("twin-9999").shell("echo hi")


def test_launcher_home_lists_installed_apps(device, apps):
    assert current(device) == (LAUNCHER_PACKAGE, LAUNCHER_ACTIVITY)
    nodes = ET.fromstring(device.dump_hierarchy()).iter("node")
    labels = [n.get("text") for n in nodes if n.get("class") == "android.widget.TextView"]
    assert labels == [app.label for app in apps.values()]
    assert set(device.list_packages()) == set(apps) | {LAUNCHER_PACKAGE}


def test_tap_on_launcher_label_starts_app(device, apps):
    root = ET.fromstring(device.dump_hierarchy())
    node = next(n for n in root.iter("node") if n.get("text") == apps[ACRYLIC].label)
    x1, y1, x2, y2 = (int(v) for v in node.get("bounds").replace("][", ",").strip("[]").split(","))
    device.click((x1 + x2) // 2, (y1 + y2) // 2)
    assert current(device) == showing(apps[ACRYLIC], apps[ACRYLIC].entry)


# ---- replay -----------------------------------------------------------------------------
@pytest.mark.parametrize("package", [ACRYLIC, ADFREE, "com.lolo.io.onelist"])
def test_app_start_dump_matches_recorded_entry(device, apps, package):
    app = apps[package]
    device.app_start(package)
    assert current(device) == showing(app, app.entry)
    xml = device.dump_hierarchy()
    assert xml.startswith("<?xml")
    assert dumped_nodes(xml) == recorded_nodes(app.states[app.entry])
    first = ET.fromstring(xml).find("node")
    assert set(first.attrib) == {"index", "text", "resource-id", "class", "package", "content-desc", "checkable",
                                 "checked", "clickable", "enabled", "focusable", "focused", "scrollable",
                                 "long-clickable", "password", "selected", "bounds"}


def test_click_follows_recorded_transition(device, apps):
    app = apps[ACRYLIC]
    device.app_start(ACRYLIC)
    src, key, _, dst = unambiguous(app, ActionType.TAP, source=app.entry)[0]
    device.click(*centre(app, src, key))
    assert current(device) == showing(app, dst)
    assert dumped_nodes(device.dump_hierarchy()) == recorded_nodes(app.states[dst])


def test_every_unambiguous_tap_replays_in_process(apps):
    """All recorded taps of two apps, each from its source state, land on the recorded target."""
    d = TwinDevice("local", apps.values())
    checked = 0
    for package in (ACRYLIC, "bluepie.ad_silence"):
        app = apps[package]
        for src, key, _, dst in unambiguous(app, ActionType.TAP):
            d.goto(package, src)
            d.tap(*centre(app, src, key))
            assert d.foreground.state_id == dst, (package, src, key)
            checked += 1
    assert checked > 50
    assert d.actions == checked


def test_tap_without_recorded_action_stays(device, apps):
    device.app_start(HOSTILE_PKG)
    before = device.dump_hierarchy()
    device.click(540, 200)
    device.click(5, 1900)
    assert current(device) == (HOSTILE_PKG, f"{HOSTILE_PKG}.Main")
    assert device.dump_hierarchy() == before


def test_back_and_home(device, apps):
    app = apps[ACRYLIC]
    device.app_start(ACRYLIC)
    src, key, _, dst = unambiguous(app, ActionType.TAP, source=app.entry)[0]
    device.click(*centre(app, src, key))
    device.keyevent("KEYCODE_BACK")
    expected = (app.targets(dst, "back||") or (app.entry,))[0]  # recorded BACK, else the previous screen
    assert current(device) == showing(app, expected)
    device.keyevent("KEYCODE_HOME")
    assert current(device) == (LAUNCHER_PACKAGE, LAUNCHER_ACTIVITY)
    # from the entry screen without a recorded BACK, BACK leaves the app
    device.app_start(HOSTILE_PKG)
    device.keyevent("4")
    assert current(device) == (LAUNCHER_PACKAGE, LAUNCHER_ACTIVITY)


def test_recorded_back_from_entry(device, apps):
    app = apps["bluepie.ad_silence"]
    target = app.targets(app.entry, "back||")[0]
    device.app_start(app.package)
    device.keyevent("BACK")
    assert current(device) == showing(app, target)


def test_input_text_scroll_and_long_tap(fleet, server, client, apps):
    twin = fleet[SERIALS[2]]
    d = client.device(SERIALS[2])
    app = apps["com.lolo.io.onelist"]
    typed = 0
    for src, key, _, dst in unambiguous(app, ActionType.INPUT):
        tapped = app.acted.get((src, ActionType.TAP), frozenset())
        x, y = centre(app, src, key)
        if any(p.key in tapped for p in app.placed[src] if p.view.bounds.contains(x, y)):
            continue  # the tap would hit a recorded element, not the edit text
        twin.goto(app.package, src)
        d.click(x, y)  # focuses the edit text
        d.send_keys("hello world")
        assert twin.foreground.state_id == dst
        typed += 1
    assert typed >= 5
    app = apps[ADFREE]
    for src, key, direction, dst in unambiguous(app, ActionType.SCROLL):
        twin.goto(ADFREE, src)
        x, y = centre(app, src, key)
        dx, dy = {"DOWN": (0, -300), "UP": (0, 300), "RIGHT": (-300, 0), "LEFT": (300, 0)}[direction]
        d.swipe(x, y, x + dx, y + dy, 0.3)
        assert twin.foreground.state_id == dst, direction
    for src, key, _, dst in unambiguous(app, ActionType.LONG_TAP):
        twin.goto(ADFREE, src)
        x, y = centre(app, src, key)
        d.swipe(x, y, x, y, 0.8)
        assert twin.foreground.state_id == dst


def test_app_start_forms_and_force_stop(device, apps):
    app = apps[ADFREE]
    assert len(set(app.launches)) > 1  # launches land on the recorded outcomes in turn
    launched = [showing(app, state_id) for state_id in app.launches]
    device.shell(f"am start -n {ADFREE}/{app.states[app.entry].activity}")
    assert current(device) == launched[0]
    device.app_stop(ADFREE)
    assert current(device) == (LAUNCHER_PACKAGE, LAUNCHER_ACTIVITY)
    device.shell(f"am start {ADFREE}/.Whatever")
    assert current(device) == launched[1]
    device.app_stop(ACRYLIC)  # not in the foreground: nothing changes
    assert current(device) == launched[1]
    device.keyevent("HOME")
    device.app_start(ADFREE)  # monkey
    assert current(device) == launched[2]
    result = device.shell2("am start -n com.not.installed/.Main")
    assert result.returncode != 0 and "does not exist" in result.output
    assert "monkey aborted" in device.shell("monkey -p com.not.installed -c android.intent.category.LAUNCHER 1")


def test_launches_cycle_through_every_recorded_outcome(apps):
    """Launching from the home screen walks the recorded launch outcomes in recorded order, so
    an app whose every launch showed another screen (a clock) shows each of them in turn."""
    d = TwinDevice("local", apps.values())
    for package in ("com.chancehorizon.just24hoursplus", "bluepie.ad_silence", ADFREE):
        app = apps[package]
        shown = []
        for _ in range(2 * len(app.launches)):
            d.start_app(package)
            shown.append(d.foreground.state_id)
            d.key("HOME")
        assert shown == list(app.launches) * 2
    assert len(set(apps["com.chancehorizon.just24hoursplus"].launches)) > 60
    d.reset()  # a reboot starts the replay over
    d.start_app(ADFREE)
    assert d.foreground.state_id == apps[ADFREE].entry


def test_actions_with_several_recorded_targets_reach_each_in_turn(apps):
    """Every (state, element action) DroidBot saw lead to several states yields its recorded
    targets in recorded order, one per time it is taken, round-robin, on every app."""
    d = TwinDevice("local", apps.values())
    checked = reached = 0
    for app in apps.values():
        for (src, signature), targets in app.transitions.items():
            type_, key, _ = signature.split("|", 2)
            if type_ != ActionType.TAP.value or len(set(targets)) < 2 or LAUNCHER_STATE in targets:
                continue
            pv = next((p for p in app.placed[src] if p.key == key), None)
            if pv is None or any(p is not pv and p.view.bounds == pv.view.bounds
                                 and p.key in app.acted[(src, ActionType.TAP)] for p in app.placed[src]):
                continue  # not on screen, or its tap is pooled with another view's
            d.reset()
            shown = []
            for _ in range(len(targets) + 1):
                d.goto(app.package, src)
                d.tap(*pv.view.bounds.center)
                shown.append(d.foreground.state_id)
            assert shown == [*targets, targets[0]], (app.package, src, key)
            checked += 1
            reached += len(set(targets))
    assert checked >= 20 and reached > 2 * checked


def test_a_tap_at_a_recorded_centre_reaches_its_recorded_targets(apps):
    """A recorded tap on a view whose centre a deeper recorded view covers still replays:
    the view whose centre is nearest the point is the one tapped."""
    d = TwinDevice("local", apps.values())
    covered = 0
    for app in apps.values():
        for (src, signature), targets in app.transitions.items():
            type_, key, _ = signature.split("|", 2)
            pv = next((p for p in app.placed.get(src, []) if p.key == key), None)
            if type_ != ActionType.TAP.value or pv is None or pv.view.bounds.area == 0:
                continue
            x, y = pv.view.bounds.center
            acted = app.acted[(src, ActionType.TAP)]
            pooled = [p.key for p in app.placed[src] if p.key in acted and p.view.bounds == pv.view.bounds]
            deeper = [p for p in app.placed[src] if p.key in acted and p.depth > pv.depth
                      and p.view.bounds != pv.view.bounds and p.view.bounds.contains(x, y)]
            covered += bool(deeper)
            allowed = {t for k in pooled for t in app.targets(src, f"tap|{k}|")}
            d.reset()
            d.goto(app.package, src)
            d.tap(x, y)
            assert (d.foreground.state_id if d.app else LAUNCHER_STATE) in allowed, (app.package, src, key)
    assert covered >= 10


def test_app_info_reports_the_twin_version_like_a_device(device, apps):
    info = device.app_info(ADFREE)
    assert (info.version_name, info.version_code) == ("1.0", 1) == (apps[ADFREE].version, apps[ADFREE].version_code)
    assert apps[ADFREE].sha256.startswith("sha256:")  # the import's name for it: an alias (graph/versions.py)
    assert device.app_info("com.not.installed") is None


def test_window_size_props_and_screenshot(device, apps):
    assert tuple(device.window_size()) == (1080, 1920)
    assert device.rotation() == 0
    assert device.getprop("ro.build.version.sdk") == "29"
    assert device.prop.get("ro.serialno") == SERIALS[0]
    for package in (None, ADFREE):
        if package:
            device.app_start(package)
        image = device.screenshot()
        assert isinstance(image, Image.Image)
        assert image.size == (1080, 1920)
        assert len(image.resize((54, 96)).getcolors(maxcolors=54 * 96)) > 1  # something is drawn


def test_unknown_command_and_shell_v2(device):
    assert device.shell("unknowncmd") == "/system/bin/sh: unknowncmd: inaccessible or not found"
    result = device.shell2("unknowncmd", v2=True)
    assert result.returncode == 127
    assert result.stdout == ""
    assert "unknowncmd: inaccessible or not found" in result.stderr
    result = device.shell2("echo hi && false || echo fallback; echo $?", v2=True)
    assert (result.stdout, result.returncode) == ("hi\nfallback\n0\n", 0)
    assert device.shell("dumpsys window windows | grep mCurrentFocus").strip().startswith("mCurrentFocus=Window{")
    assert device.shell2("input tap x y", v2=True).returncode != 0


def test_hostile_text_survives_xml_dump(device):
    device.app_start(HOSTILE_PKG)
    xml = device.dump_hierarchy()
    nodes = list(ET.fromstring(xml).iter("node"))
    assert nodes[1].get("text") == HOSTILE
    assert nodes[1].get("content-desc") == "desc \"&<>'"
    assert nodes[1].get("resource-id") == f"{HOSTILE_PKG}:id/<\"odd\">"
    assert nodes[2].get("text") == "badcharshere"  # characters XML cannot carry are dropped, as uiautomator does
    assert device.screenshot().size == (1080, 1920)


def test_sync_push_pull_stat_list(device):
    payload = os.urandom(200_000)
    device.sync.push(payload, "/data/local/tmp/blob.bin")
    assert device.sync.read_bytes("/data/local/tmp/blob.bin") == payload
    assert device.sync.stat("/data/local/tmp/blob.bin").size == len(payload)
    assert device.sync.exists("/data/local/tmp")
    assert not device.sync.exists("/data/local/tmp/missing")
    assert "blob.bin" in [f.path for f in device.sync.list("/data/local/tmp")]
    with pytest.raises(adbutils.AdbError):
        device.sync.read_bytes("/data/local/tmp/missing")
    device.shell("uiautomator dump /sdcard/d.xml")
    assert device.sync.read_text("/sdcard/d.xml") == device.shell("cat /sdcard/d.xml")


def test_devices_run_concurrently_from_threads(client, fleet, apps):
    packages = [ACRYLIC, ADFREE, "com.lolo.io.onelist", "tw.qtlin.mac.airunlocker"]
    errors: list[BaseException] = []

    def drive(serial: str, package: str) -> None:
        try:
            fleet[serial].reset()
            d = client.device(serial)
            app = apps[package]
            for i in range(5):
                d.keyevent("HOME")
                d.app_start(package)
                landed = app.launches[i % len(app.launches)]
                assert current(d) == showing(app, landed)
                assert dumped_nodes(d.dump_hierarchy()) == recorded_nodes(app.states[landed])
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=drive, args=(s, p)) for s, p in zip(SERIALS, packages)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    assert [current(client.device(s)) for s in SERIALS] == [
        showing(apps[p], apps[p].launches[4 % len(apps[p].launches)]) for p in packages]


def test_unresponsive_device_hangs_and_recovers(server, client, fleet):
    serial = SERIALS[3]
    d = client.device(serial)
    server.set_unresponsive(serial)
    try:
        with pytest.raises(AdbTimeout):
            d.open_transport("get-state", timeout=0.5)
        with pytest.raises(AdbTimeout):
            d.open_transport(timeout=0.5)
        assert client.device(SERIALS[1]).shell("echo alive") == "alive"  # the others still answer
    finally:
        server.set_unresponsive(serial, False)
    d.app_start(ACRYLIC)
    assert current(d)[0] == ACRYLIC
    server.reset(serial)
    assert current(d) == (LAUNCHER_PACKAGE, LAUNCHER_ACTIVITY)
    with pytest.raises(DeviceError):
        server.set_unresponsive("twin-9999")


def test_counters_and_visited(apps):
    d = TwinDevice("local", apps.values())
    d.start_app(ACRYLIC)
    d.key("KEYCODE_HOME")
    assert d.actions == 2
    assert (ACRYLIC, apps[ACRYLIC].entry) in d.visited
    assert (LAUNCHER_PACKAGE, LAUNCHER_STATE) in d.visited
    with pytest.raises(DeviceError):
        d.goto(ACRYLIC, "no-such-state")
    assert execute(d, "echo a > /sdcard/f; cat /sdcard/f").stdout == b"a\n"


def test_real_adb_binary(server):
    adb = Path(adbutils.__file__).parent / "binaries" / "adb"
    env = dict(os.environ, ANDROID_ADB_SERVER_PORT=str(server.port))

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(adb), *args], env=env, capture_output=True, timeout=30)

    assert SERIALS[0] in run("devices").stdout.decode()
    shell = run("-s", SERIALS[1], "shell", "wm size")
    assert (shell.returncode, shell.stdout) == (0, b"Physical size: 1080x1920\n")
    assert run("-s", SERIALS[1], "shell", "nosuch").returncode == 127
    png = run("-s", SERIALS[1], "exec-out", "screencap -p").stdout
    assert Image.open(io.BytesIO(png)).size == (1080, 1920)


def test_profiles_and_updates_are_seeded_and_agree_across_dumpsys_wm_and_dumps():
    from appmem.twins.profiles import Profile
    from appmem.formats.uixml import parse_hierarchy

    folder = DROIDBOT / "de.szalkowski.activitylauncher"
    small = TwinApp.from_droidbot(folder, profile=Profile.parse("small,dynamic"), version=2)
    again = TwinApp.from_droidbot(folder, profile=Profile.parse("dynamic,small"), version=2)
    assert [v.text for v in small.states[small.entry].views] == [v.text for v in again.states[again.entry].views]
    assert small.updates[0].changed_states and small.updates[0].renamed and small.updates[0].removed
    with pytest.raises(InvalidInput):
        Profile.parse("small,huge")
    with TwinServer({"twin-small": TwinDevice("twin-small", [small])}) as server:
        d = adbutils.AdbClient("127.0.0.1", server.port).device("twin-small")
        assert tuple(d.window_size()) == (720, 1280)
        assert d.shell("wm density").strip() == "Physical density: 280"
        assert (d.app_info(small.package).version_name, d.app_info(small.package).version_code) == ("2.0", 2)
        d.app_start(small.package)
        state = parse_hierarchy(d.dump_hierarchy(), small.package, ".Main")
        assert state.views and all(v.bounds.right <= 720 and v.bounds.bottom <= 1280 for v in state.views)
