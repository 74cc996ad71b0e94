"""The device driver against a twin that stops answering, over the real adb protocol (twins/adb_server.py).

Every call must end in a DeviceError within about the driver's timeout: adbutils' `shell()` opened its
transport with a 600-s timeout, so a device that hung on the shell request held a worker for 10 minutes.
"""
from __future__ import annotations

import threading
import time

import pytest

from appmem.errors import DeviceError
from appmem.device.driver import open_driver
from appmem.formats.ui import Action, ActionType, Bounds
from tests.conftest import DROIDBOT
from appmem.twins.adb_server import TwinServer
from appmem.twins.device import build_fleet

ACRYLIC = "anupam.acrylic"
SERIAL = "twin-0001"
TIMEOUT_S = 1.5
BOUND_S = 3 * TIMEOUT_S  # one timeout plus a margin no loaded 2-core machine needs; unbounded calls wait 600 s


@pytest.fixture
def hung():
    """A driver whose twin answered once, then stopped answering."""
    with TwinServer(build_fleet([DROIDBOT / ACRYLIC], 1)) as server:
        driver = open_driver("127.0.0.1", server.port, SERIAL, TIMEOUT_S)
        driver.ping()
        server.set_unresponsive(SERIAL)
        yield driver


def timed(call) -> tuple[float | None, BaseException | None]:
    """(seconds, what it raised) of `call` in a thread; (None, None) when it still runs after BOUND_S."""
    box: dict = {}

    def run() -> None:
        started = time.monotonic()
        try:
            call()
        except BaseException as exc:  # reported to the test
            box["raised"] = exc
        box["seconds"] = time.monotonic() - started

    thread = threading.Thread(target=run, daemon=True)  # a call that hangs is left behind, unblocked by stop()
    thread.start()
    thread.join(BOUND_S)
    return box.get("seconds"), box.get("raised")


AREA = Bounds(0, 0, 1080, 1920)
CALLS = {
    "ping": lambda d: d.ping(),
    "app_version": lambda d: d.app_version(ACRYLIC),
    "foreground": lambda d: d.foreground(),
    "dump": lambda d: d.dump(),
    "observe": lambda d: d.observe(),
    "tap": lambda d: d.perform(Action(ActionType.TAP, element_key="x"), AREA),
    "home": lambda d: d.perform(Action(ActionType.HOME), None),
    "start_app": lambda d: d.perform(Action(ActionType.START_APP, text=ACRYLIC), None),
    "stop_app": lambda d: d.perform(Action(ActionType.STOP_APP, text=ACRYLIC), None),
}


@pytest.mark.parametrize("name", sorted(CALLS))  # one test each: the waits run on every test process at once
def test_every_call_to_a_device_that_stopped_answering_fails_within_its_timeout(hung, name):
    touched = hung.touched
    seconds, raised = timed(lambda: CALLS[name](hung))
    assert seconds is not None, f"{name} still waits on the device after {BOUND_S:.1f} s"
    assert isinstance(raised, DeviceError) and SERIAL in str(raised), (name, raised)
    assert TIMEOUT_S * 0.9 <= seconds < BOUND_S, (name, seconds)  # it waited for the device, then gave up
    assert hung.touched == touched  # no answer: the lease heartbeat must not see it as alive
