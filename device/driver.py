"""One device driven through `adbutils`: observe the screen, perform an Action.

This is the only module that talks to a device. Every read from the adb server
waits at most the driver's timeout, so a device that stops answering fails the
call within about one timeout, and every adb failure becomes a `DeviceError`
naming the device. The timeout lives on the connections (`AdbServer`), not on
the calls: adbutils' `shell(..., timeout=)` opens the shell with
`open_transport()`'s 600-s default and applies its timeout to the output only,
so a device that hangs on the `shell:` request (or its selection) held the
caller for 10 minutes. `touched` is the monotonic time of the last successful
exchange: the lease heartbeat renews a lease only while the device answers (see
workers/devices.py). `open_driver` reaches a device through an adb server with
that timeout on every exchange, the server's handshake included, and never
starts a local `adb` server when the connection is refused (adbutils does:
`adb start-server`, a daemon left on tcp:5037).
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

import adbutils

from appmem.errors import DeviceError
from appmem.formats.ui import Action, ActionType, Bounds, UIState
from appmem.formats.uixml import parse_hierarchy, version_code, version_name

FOCUS_RE = re.compile(r"mCurrentFocus=Window\{\S+ u\d+ (?P<package>[^\s/}]+)/(?P<activity>[^\s}]+)\}")
DUMP_PATH = "/data/local/tmp/appmem_dump.xml"
KEYS = {ActionType.BACK: "KEYCODE_BACK", ActionType.HOME: "KEYCODE_HOME", ActionType.ENTER: "KEYCODE_ENTER"}
LONG_PRESS_MS = 800
SWIPE_MS = 300

TIMEOUT_S = 10.0  # the longest one read from an adb server waits, unless a caller says otherwise


class _Connection(adbutils.AdbConnection):
    """A connection to an adb server that fails when refused, where adbutils runs `adb start-server` and tries again."""

    def _safe_connect(self):
        return self._create_socket()


class AdbServer(adbutils.AdbClient):
    """An adb server at host:port; every read on a connection to it, the handshake included, times out after
    at most `timeout_s`, whatever timeout adbutils asks for."""

    def __init__(self, host: str, port: int, timeout_s: float):
        super().__init__(host, port, socket_timeout=timeout_s)
        self.timeout_s = timeout_s

    def serials(self) -> list[str]:
        """The serials of the devices the server lists; a DeviceError when it cannot be reached."""
        try:
            return [d.serial for d in self.device_list()]
        except (adbutils.AdbError, OSError) as exc:
            raise DeviceError(f"adb server {self.host}:{self.port}: {exc}") from None

    def make_connection(self, timeout: float | None = None) -> adbutils.AdbConnection:
        # Never longer than timeout_s: adbutils passes its 600-s default where its callers cannot pass one.
        conn = _Connection(self.host, self.port)
        conn.conn.settimeout(min(timeout or self.timeout_s, self.timeout_s))
        return conn


def open_driver(host: str, port: int, serial: str, timeout_s: float = TIMEOUT_S) -> "DeviceDriver":
    """The device `serial` of the adb server at host:port, every exchange bounded by `timeout_s`."""
    return DeviceDriver(AdbServer(host, port, timeout_s).device(serial), serial, timeout_s)


@dataclass
class DeviceDriver:
    """An adbutils device with timeouts; `name` is the pool's device id, used in errors. The calls are bounded
    by `timeout_s` when the device comes from an `AdbServer` of that timeout (`open_driver`, the workers)."""

    device: adbutils.AdbDevice
    name: str
    timeout_s: float = TIMEOUT_S
    touched: float = field(default_factory=time.monotonic)

    def shell(self, args: list[str]) -> str:
        try:
            out = self.device.shell(args, timeout=self.timeout_s)
        except (adbutils.AdbError, OSError) as exc:  # AdbTimeout is an AdbError
            raise DeviceError(f"device {self.name}: {' '.join(args[:3])} failed: {exc}") from exc
        self.touched = time.monotonic()
        return out

    def ping(self) -> None:
        if self.shell(["echo", "ok"]).strip() != "ok":
            raise DeviceError(f"device {self.name}: echo answered nonsense")

    def app_version(self, package: str) -> tuple[str, int | None]:
        """(versionName, versionCode) as the device reports them."""
        out = self.shell(["dumpsys", "package", package])
        version = version_name(out)
        if not version:
            raise DeviceError(f"device {self.name}: package {package} is not installed (no versionName)")
        return version, version_code(out)

    def observe(self) -> UIState:
        """The current screen: foreground package/activity, then the uiautomator dump."""
        package, activity, xml = self.dump()
        return parse_hierarchy(xml, package, activity, where=f"dump of {self.name}")

    def dump(self) -> tuple[str, str, str]:
        """(foreground package, activity, raw uiautomator XML) of the current screen."""
        package, activity = self.foreground()
        out = self.shell(["uiautomator", "dump", DUMP_PATH])
        if "ERROR" in out:
            raise DeviceError(f"device {self.name}: uiautomator dump failed: {out.strip()[:200]}")
        try:
            xml = self.device.sync.read_text(DUMP_PATH)
        except (adbutils.AdbError, OSError) as exc:
            raise DeviceError(f"device {self.name}: reading the dump failed: {exc}") from exc
        self.touched = time.monotonic()
        return package, activity, xml

    def foreground(self) -> tuple[str, str]:
        """(package, activity) of the focused window (adbutils' app_current, with a timeout)."""
        out = self.shell(["dumpsys", "window", "windows"])
        m = FOCUS_RE.search(out)
        if not m:
            raise DeviceError(f"device {self.name}: no focused window in dumpsys window")
        return m.group("package"), m.group("activity")

    def perform(self, action: Action, bounds: Bounds | None) -> None:
        """Send one action; element actions need the element's bounds."""
        kind = action.type
        if kind.needs_element and bounds is None:
            raise ValueError(f"{kind.value} needs an element")
        if kind == ActionType.TAP:
            x, y = bounds.center
            self.shell(["input", "tap", str(x), str(y)])
        elif kind == ActionType.LONG_TAP:
            x, y = bounds.center
            self.shell(["input", "swipe", str(x), str(y), str(x), str(y), str(LONG_PRESS_MS)])
        elif kind == ActionType.INPUT:
            x, y = bounds.center
            self.shell(["input", "tap", str(x), str(y)])
            self.shell(["input", "text", action.text.replace(" ", "%s")])
        elif kind == ActionType.SCROLL:
            self.shell(["input", "swipe", *map(str, scroll_points(bounds, action.text)), str(SWIPE_MS)])
        elif kind in KEYS:
            self.shell(["input", "keyevent", KEYS[kind]])
        elif kind == ActionType.START_APP:
            self.shell(["monkey", "-p", action.text, "-c", "android.intent.category.LAUNCHER", "1"])
        elif kind == ActionType.STOP_APP:
            self.shell(["am", "force-stop", action.text])
        else:
            raise ValueError(f"unsupported action {kind}")


def scroll_points(b: Bounds, direction: str) -> tuple[int, int, int, int]:
    """Swipe start and end for DroidBot's scroll names: DOWN moves the finger up
    (content further down comes into view), RIGHT moves it left."""
    x, y = b.center
    dx, dy = max(1, (b.right - b.left) // 3), max(1, (b.bottom - b.top) // 3)
    return {"DOWN": (x, y + dy, x, y - dy), "UP": (x, y - dy, x, y + dy),
            "RIGHT": (x + dx, y, x - dx, y), "LEFT": (x - dx, y, x + dx, y)}[direction]
