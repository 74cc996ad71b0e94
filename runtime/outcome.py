"""Judging one step from the dumps before and after it: went as planned, no effect, missed, or a crash."""
from __future__ import annotations

from typing import Any

from appmem.formats.uixml import parse_hierarchy
from appmem.runtime.move import Move
from appmem.runtime.screen import LiveScreen


def outcome(before: LiveScreen, after: LiveScreen, package: str, expected: str | None, expected_package: str) -> str:
    """`expected`: the screen memory expects after the step (None: anything goes); `expected_package`: the
    app of that screen when memory knows it (a step may leave the app)."""
    if expected is None or after.screen_id == expected:
        return "ok"
    if after.package != package and before.package == package:
        # the app left the foreground: where memory saw this step go (home, a share), else a crash
        return "ok" if after.package == expected_package else "crash"
    if after.screen_id is None:  # a screen memory has not seen: judge by the next step's grounding
        return "ok"
    return "no_effect" if after.xml == before.xml else "missed"


def took_effect(step: Move, record: dict[str, Any]) -> bool:
    """The step acted on its element, found on the screen and showing the same text (a locator may find
    another view in its place), and the screen changed without a crash."""
    element = step.element
    if element is None or record["after_xml"] == record["before_xml"] or not shows(element, record["element"]):
        return False
    return not parse_hierarchy(record["after_xml"], "", record["after_activity"]).crashed


def shows(element: dict[str, Any], view: dict[str, Any] | None) -> bool:
    """Whether a dumped view shows the planned element's text or description (when it has one): a locator
    may find another view in its place."""
    shown = {(element.get(k) or "").strip() for k in ("text", "content_desc")} - {""}
    return not shown or bool(shown & {((view or {}).get(k) or "").strip() for k in ("text", "content_desc")})


def label(step: Move) -> str:
    """How a step names its element in reasons and results."""
    element = step.element or {}
    return element.get("label") or element.get("text") or element.get("content_desc") or step.action
