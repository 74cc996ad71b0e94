"""DroidBot's event strings (utg.js edges: `TouchEvent(state=..., view=<view_str>(activity/Class-text))`,
`KeyEvent(name=BACK)`, `IntentEvent(intent='am start ...')`, ...) → domain Actions on a state's views.
"""
from __future__ import annotations

import re

from appmem.errors import InputFormatError
from appmem.formats.ui import Action, ActionType, UIState

EVENT_RE = re.compile(r"^(?P<kind>\w+?)Event\((?P<body>.*)\)$", re.S)
VIEW_RE = re.compile(r"view=(?P<view>[0-9a-f]{32})\((?P<activity>[^/]*)/(?P<cls>[^-]*)-(?P<text>[^)]*)\)")
KEY_RE = re.compile(r"name=(?P<name>\w+)")
DIRECTION_RE = re.compile(r"direction=(?P<dir>\w+)")
TEXT_RE = re.compile(r"\), text=(?P<text>.*)$", re.S)
INTENT_RE = re.compile(r"intent='(?P<intent>[^']*)'")
START_RE = re.compile(r"am start(?: -n)? (?P<pkg>[\w.]+)/")
STOP_RE = re.compile(r"am force-stop (?P<pkg>[\w.]+)")

KEY_ACTIONS = {"BACK": ActionType.BACK, "HOME": ActionType.HOME, "ENTER": ActionType.ENTER}


def _view_by_label(state: UIState, short_class: str, text: str) -> int | None:
    """DroidBot keeps one state file per state_str; a view of a later visit can
    carry another view_str. Fall back to the label DroidBot printed; an event
    whose view cannot be found stays element-free rather than guessed."""
    for v in state.views:
        if v.short_class == short_class and (v.text or "") == text:
            return v.index
    return None


def action_from_event_str(event_str: str, state: UIState, view_strs: dict[str, int], where: str,
                          typed: dict[str, str]) -> tuple[Action, int | None]:
    """A DroidBot event string → (Action, index of the view acted on or None)."""
    m = EVENT_RE.match(event_str.strip())
    if not m:
        raise InputFormatError(where, f"unrecognised event {event_str[:120]!r}")
    kind, body = m.group("kind"), m.group("body")
    view_index = None
    if kind in ("Touch", "LongTouch", "SetText", "Scroll"):
        vm = VIEW_RE.search(body)
        if vm:
            view_index = view_strs.get(vm.group("view"))
            if view_index is None:
                view_index = _view_by_label(state, vm.group("cls"), vm.group("text"))
    if kind == "Touch":
        return Action(ActionType.TAP), view_index
    if kind == "LongTouch":
        return Action(ActionType.LONG_TAP), view_index
    if kind == "SetText":
        tm = TEXT_RE.search(body)
        return Action(ActionType.INPUT, text=typed.get(event_str, tm.group("text") if tm else "")), view_index
    if kind == "Scroll":
        dm = DIRECTION_RE.search(body)
        return Action(ActionType.SCROLL, text=(dm.group("dir") if dm else "DOWN").upper()), view_index
    if kind == "Key":
        km = KEY_RE.search(body)
        name = km.group("name").upper() if km else ""
        if name not in KEY_ACTIONS:
            raise InputFormatError(where, f"unknown key {name!r} in {event_str[:120]!r}")
        return Action(KEY_ACTIONS[name]), None
    if kind == "Intent":
        im = INTENT_RE.search(body)
        intent = im.group("intent") if im else ""
        if sm := START_RE.search(intent):
            return Action(ActionType.START_APP, text=sm.group("pkg")), None
        if sm := STOP_RE.search(intent):
            return Action(ActionType.STOP_APP, text=sm.group("pkg")), None
        raise InputFormatError(where, f"unsupported intent in {event_str[:120]!r}")
    if kind == "KillApp":
        return Action(ActionType.STOP_APP), None
    raise InputFormatError(where, f"unknown event type {kind!r} in {event_str[:120]!r}")
