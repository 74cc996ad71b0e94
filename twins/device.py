"""A twin device: installed twin apps, a launcher, a current screen, and the
input actions that move between recorded screens.

Behaviour, in device terms:
- replay: an action DroidBot took several times from one state may have led
  to several states; the device walks an action's recorded targets
  round-robin, in recorded order (repeats kept, so in the recorded
  proportions), one step per time it is taken, and so reaches every recorded
  target deterministically. The turn counters are per device and cleared by
  `reset` (a reboot). Which recorded input counts as "this input in this
  state" is the device's replay mode (twins/replay.py): `exact` (default:
  DroidBot's state_str) or `similar` (the same widget on a like screen of the
  same activity); both walk only the outcomes recorded after the previous
  state most like the one the device showed before (`exact`: that very state),
  all of them when none was or that state is unknown.
- tap and swipe: which recorded input a gesture is (twins/gestures.py).
- text: INPUT on the last tapped editable view (else the focused editable one).
- BACK follows the recorded BACK transitions; without one it returns to the
  previous screen of this app session, or to the launcher from the entry screen.
  HOME (and force-stopping the foreground app) returns to the launcher; ENTER
  follows its recorded transitions or does nothing.
- launching an app follows the recorded START_APP targets of the current
  screen, else the app's recorded launch outcomes (`TwinApp.launches`), round-robin.

Every device counts its input actions and the (app package, state id) pairs it
has shown, for coverage measurement. All methods are thread-safe.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from dataclasses import dataclass

from appmem.errors import DeviceError, InvalidInput
from appmem.formats.ui import Action, ActionType, UIState
from appmem.twins.app import (DEFAULT_SIZE, LAUNCHER_PACKAGE, LAUNCHER_STATE, PlacedView, TwinApp,
                              launcher_state, place_views)
from appmem.twins.gestures import is_still, key_name, press_kind, scroll_direction, views_hit
from appmem.twins.profiles import RECORDED_DENSITY, Profile
from appmem.twins.modes import EXACT, MODES
from appmem.twins.replay import acted_views, mode_targets
from appmem.twins.render import hierarchy_xml, screenshot_png
from appmem.twins.vfs import VirtualFS

log = logging.getLogger(__name__)



@dataclass(frozen=True)
class Foreground:
    """What `dumpsys window` reports: the focused package and activity, and the state shown."""

    package: str
    activity: str
    state_id: str


class TwinDevice:
    """One twin device. `serial` names it on the adb server."""

    def __init__(self, serial: str, apps: Iterable[TwinApp], sdk: int = 29, replay: str = EXACT):
        if replay not in MODES:
            raise InvalidInput("replay", f"{replay!r} is not one of {', '.join(MODES)}")
        self.serial = serial
        self.replay = replay
        self.apps: dict[str, TwinApp] = {}
        for app in apps:
            self.apps.setdefault(app.package, app)
        self.sdk = sdk
        first = next(iter(self.apps.values()), None)
        self.width, self.height = (first.width, first.height) if first else DEFAULT_SIZE
        self.density = first.profile.density if first else RECORDED_DENSITY
        self._launcher, self._launcher_keys = launcher_state(list(self.apps.values()), self.width, self.height)
        self._launcher_placed = place_views(self._launcher)
        self._launcher_renders: dict[str, str | bytes] = {}
        self.files = VirtualFS()
        self.lock = threading.RLock()
        self.actions = 0
        self.visited: set[tuple[str, str]] = set()
        self._app: TwinApp | None = None
        self._state_id = LAUNCHER_STATE
        self._stack: list[str] = []  # screens of the current app session, for BACK without a recorded transition
        self._before: str | None = None  # the state shown before the current one (None: unknown)
        self._focus_key = ""
        self._turns: dict[tuple[str, str, tuple[str, ...]], int] = {}  # (package, state, signatures) → next turn
        self.reset()

    # ---- observation -------------------------------------------------
    @property
    def app(self) -> TwinApp | None:
        """The app in the foreground, None on the launcher."""
        return self._app

    @property
    def state(self) -> UIState:
        return self._launcher if self._app is None else self._app.states[self._state_id]

    @property
    def foreground(self) -> Foreground:
        with self.lock:
            state = self.state
            return Foreground(state.package, state.activity, self._state_id)

    def hierarchy(self) -> str:
        """The uiautomator XML of the current screen."""
        with self.lock:
            cache, key = self._render_slot("xml")
            if key not in cache:
                cache[key] = hierarchy_xml(self.state)
            return str(cache[key])

    def screenshot(self) -> bytes:
        """A PNG of the current screen at the display size."""
        with self.lock:
            cache, key = self._render_slot("png")
            if key not in cache:
                cache[key] = screenshot_png(self.state, self.width, self.height)
            return bytes(cache[key])

    def _render_slot(self, kind: str) -> tuple[dict[str, str | bytes], str]:
        if self._app is None:
            return self._launcher_renders, kind
        return self._app.renders, f"{kind}|{self._state_id}|{self.width}x{self.height}"

    # ---- control -----------------------------------------------------
    def reset(self) -> None:
        """Back to the launcher, as after a reboot: the replay starts over (counters and files are kept)."""
        with self.lock:
            self._turns.clear()
            self._go_launcher()

    def goto(self, package: str, state_id: str) -> None:
        """Show a recorded state of an installed app directly, as a fresh session
        (to set up tests and targeted exploration)."""
        with self.lock:
            app = self.apps.get(package)
            if app is None or state_id not in app.states:
                raise DeviceError(f"{self.serial}: no recorded state {state_id!r} of {package!r}")
            self._app, self._stack = app, []
            self._go(state_id)
            self._before = None

    def tap(self, x: int, y: int) -> None:
        with self.lock:
            self.actions += 1
            self._touch(ActionType.TAP, x, y)

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        with self.lock:
            self.actions += 1
            dx, dy = x2 - x1, y2 - y1
            if is_still(dx, dy):
                self._touch(press_kind(duration_ms), x1, y1)
                return
            if self._app is None:
                return
            hits = self._hit(x1, y1, ActionType.SCROLL, lambda v: v.view.scrollable)
            if hits:
                self._follow(*(Action(ActionType.SCROLL, hit.key, scroll_direction(dx, dy)) for hit in hits))

    def input_text(self, text: str) -> None:
        with self.lock:
            self.actions += 1
            if self._app is None:
                return
            key = self._focus_key or next(
                (pv.key for pv in self._app.placed[self._state_id] if pv.view.focused and pv.view.editable), "")
            if key:
                self._follow(Action(ActionType.INPUT, key, text))

    def key(self, code: str) -> None:
        """A key event by name (KEYCODE_BACK, BACK) or number (4); keys that are
        not BACK/HOME/ENTER change nothing."""
        with self.lock:
            self.actions += 1
            name = key_name(code)
            if self._app is None or not name:
                return
            if name == "HOME":
                self._go_launcher()
            elif name == "ENTER":
                self._follow(Action(ActionType.ENTER))
            elif not self._follow(Action(ActionType.BACK)):
                if self._state_id == self._app.entry or len(self._stack) < 2:
                    self._go_launcher()
                else:
                    self._go(self._stack[-2])

    def start_app(self, package: str) -> bool:
        """Launch an installed app; False when it is not installed."""
        with self.lock:
            app = self.apps.get(package)
            if app is None:
                return False
            self.actions += 1
            self._launch(app)
            return True

    def stop_app(self, package: str) -> None:
        """Force-stop: the launcher shows when the app was in the foreground."""
        with self.lock:
            self.actions += 1
            if self._app is not None and self._app.package == package:
                self._go_launcher()

    # ---- internals ---------------------------------------------------
    def _touch(self, kind: ActionType, x: int, y: int) -> None:
        if self._app is None:
            if kind == ActionType.TAP:
                for pv in reversed(self._launcher_placed):
                    if pv.key in self._launcher_keys and pv.view.bounds.contains(x, y):
                        self._launch(self.apps[self._launcher_keys[pv.key]])
                        return
            return
        hits = self._hit(x, y, kind, lambda v: v.view.interactive)
        if not hits:
            return
        self._follow(*(Action(kind, hit.key) for hit in hits))
        hit = next((h for h in hits if h.view.editable), hits[0])
        if hit.view.editable and any(pv.key == hit.key and pv.view.editable for pv in self._app.placed[self._state_id]):
            self._focus_key = hit.key  # still there after the tap (often a new state: the keyboard shows)

    def _launch(self, app: TwinApp) -> None:
        start = Action(ActionType.START_APP, text=app.package).signature
        targets = app.targets(self._state_id, start) if self._app is app else ()
        key = (app.package, self._state_id, (start,)) if targets else (app.package, "", (start,))
        target = self._turn(key, targets or app.launches)
        self._app, self._stack = app, []
        self._go(target)

    def _hit(self, x: int, y: int, kind: ActionType, fallback: Callable[[PlacedView], bool]) -> list[PlacedView]:
        """The views a `kind` action at (x, y) acts on (twins/gestures.views_hit), with the views this
        replay mode takes for recorded `kind` inputs."""
        assert self._app is not None
        acted = acted_views(self.replay, self._app, self._state_id, kind)
        return views_hit(self._app.placed[self._state_id], acted, x, y, fallback)

    def _follow(self, *actions: Action) -> bool:
        """Take the next recorded transition of these actions (one physical input) from the
        current state; False when none was recorded."""
        targets = self.recorded_targets(*actions)
        if not targets:
            return False
        assert self._app is not None
        self._go(self._turn((self._app.package, self._state_id, tuple(a.signature for a in actions) + targets),
                            targets))
        return True

    def recorded_targets(self, *actions: Action) -> tuple[str, ...]:
        """The recorded targets this device replays, round-robin, for one physical input on these
        views from the current state, as its replay mode chooses them; () when none was recorded."""
        if self._app is None:
            return ()
        return mode_targets(self.replay, self._app, self._state_id, actions, self._before)

    def _turn(self, key: tuple[str, str, tuple[str, ...]], targets: tuple[str, ...]) -> str:
        """The next of `targets` for this (package, state, action) on this device, round-robin."""
        turn = self._turns.get(key, 0)
        self._turns[key] = turn + 1
        return targets[turn % len(targets)]

    def _go(self, target: str) -> None:
        if target == LAUNCHER_STATE or self._app is None:
            self._go_launcher()
            return
        if target in self._stack:
            del self._stack[self._stack.index(target) + 1:]
        else:
            self._stack.append(target)
        if target != self._state_id:
            self._focus_key = ""
            self._before = self._state_id if self._app is not None else None
        self._state_id = target
        self.visited.add((self._app.package, target))

    def _go_launcher(self) -> None:
        self._app, self._stack, self._focus_key = None, [], ""
        self._state_id, self._before = LAUNCHER_STATE, None
        self.visited.add((LAUNCHER_PACKAGE, LAUNCHER_STATE))


def build_fleet(app_folders: Iterable[str | Path], n_devices: int, prefix: str = "twin-",
                profile: Profile = Profile(), version: int = 1, replay: str = EXACT) -> dict[str, TwinDevice]:
    """`n_devices` twin devices (serials twin-0001, ...), each with every app installed, as
    `profile` shows them, at app `version` (twins/profiles.py), replaying in mode `replay`
    (twins/replay.py). Each folder is read once; the apps are shared, the device state is not."""
    apps = [TwinApp.from_droidbot(folder, profile=profile, version=version) for folder in app_folders]
    return {f"{prefix}{i:04d}": TwinDevice(f"{prefix}{i:04d}", apps, replay=replay) for i in range(1, n_devices + 1)}
