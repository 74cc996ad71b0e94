"""uiautomator XML (what `adbutils` `dump_hierarchy()` returns) → the domain `UIState`.

The views become the same `View`s the DroidBot importer builds, so the screen
signature, the element keys (structural paths) and the screen ids of a crawled
state are those of the same screen imported from a recording, and crawls merge
with imports. Views are numbered in document (pre-)order, parent before child.

The concrete state id is a content hash of the views in DroidBot's own recipe
(`state_str`: md5 of the activity and the sorted set of per-view signatures of
class, resource id, text ≤ 50 characters, enabled/checked/selected). A dump
holds only the views a user can see, while DroidBot's state files also hold
invisible ones, so the id is computed over *shown* views only; `shown_state_id`
applies the same recipe to a recorded state, which is how the benchmark and the
crawl summary tell which recorded states a crawl reached. `variant_id` is that
recipe without the activity (dumps and recordings name it differently): the
concrete variant of a screen that the graph's routes condition on.

uiautomator has no `editable` attribute: a view of an EditText class is editable.
The app version comes from `dumpsys package PKG` (`versionName=`).
"""
from __future__ import annotations

import hashlib
import re
import xml.etree.ElementTree as ET
from dataclasses import replace

from appmem.errors import InputFormatError
from appmem.formats.ui import Bounds, UIState, View, view_text

# At most 10 digits (Android's 2147483647; formats/ui.py Bounds.read): int() of a longer one is slow, and past 4300
# digits a ValueError that a plan request's dump turned into a 500.
BOUNDS_RE = re.compile(r"\[(-?\d{1,10}),(-?\d{1,10})\]\[(-?\d{1,10}),(-?\d{1,10})\]")
VERSION_RE = re.compile(r"versionName=(?P<name>\S+)")
VERSION_CODE_RE = re.compile(r"versionCode=(?P<code>\d+)")
# DroidBot leaves texts longer than this out of the state hash (they are content).
STATE_TEXT_MAX = 50
VARIANT_HEX = 16  # of the md5: enough to tell one app's variants apart, short in the graph


def _flag(node: ET.Element, name: str) -> bool:
    return node.get(name) == "true"


def parse_bounds(raw: str | None) -> Bounds | None:
    """A node's `bounds="[l,t][r,b]"`; None when malformed, past Android's coordinates, or absent."""
    m = BOUNDS_RE.fullmatch((raw or "").strip())
    return Bounds.read([int(g) for g in m.groups()]) if m else None


def _bounds(raw: str | None, where: str) -> Bounds:
    bounds = parse_bounds(raw)
    if bounds is None:
        raise InputFormatError(where, f"node has malformed bounds {raw!r}")
    return bounds


def qualified_activity(package: str, activity: str) -> str:
    """`.Main` → `pkg.Main`, as the DroidBot importer writes activities."""
    return package + activity if activity.startswith(".") else activity


MAX_DEPTH = 200  # real screens nest a few dozen views deep; a deeper dump is hostile (the walk recurses)


def parse_hierarchy(xml: str, package: str, activity: str, where: str = "uiautomator dump") -> UIState:
    """A uiautomator dump plus the foreground (package, activity) → a UIState with its state id."""
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as exc:
        raise InputFormatError(where, f"malformed XML: {exc}") from None
    if root.tag != "hierarchy":
        raise InputFormatError(where, f"root element is <{root.tag}>, not <hierarchy>")
    views: list[View] = []

    def walk(node: ET.Element, parent: int, depth: int) -> int:
        if depth > MAX_DEPTH:
            raise InputFormatError(where, f"views nested deeper than {MAX_DEPTH} levels: not a screen's dump")
        index = len(views)
        class_name = node.get("class") or ""
        view = View(
            index=index, parent=parent, children=[], class_name=class_name,
            package=node.get("package") or "", resource_id=node.get("resource-id") or "",
            text=view_text(node.get("text") or ""), content_desc=view_text(node.get("content-desc") or ""),
            bounds=_bounds(node.get("bounds"), where),
            enabled=_flag(node, "enabled"), clickable=_flag(node, "clickable"),
            long_clickable=_flag(node, "long-clickable"), checkable=_flag(node, "checkable"),
            checked=_flag(node, "checked"), scrollable=_flag(node, "scrollable"),
            editable="EditText" in class_name, focusable=_flag(node, "focusable"),
            focused=_flag(node, "focused"), selected=_flag(node, "selected"), password=_flag(node, "password"),
        )
        views.append(view)
        for child in node:
            if child.tag == "node":
                view.children.append(walk(child, index, depth + 1))
        return index

    for top in root:
        if top.tag == "node":
            walk(top, -1, 1)
    activity = qualified_activity(package, activity)
    width = max((v.bounds.right for v in views if v.parent < 0), default=0)
    height = max((v.bounds.bottom for v in views if v.parent < 0), default=0)
    state = UIState(package=package, activity=activity, views=views, width=width or 1080, height=height or 1920)
    state.state_id = content_state_id(activity, views)
    return state


def view_signature(view: View) -> str:
    """DroidBot's per-view signature (`DeviceState.__get_view_signature`)."""
    text = view.text if view.text and len(view.text) <= STATE_TEXT_MAX else "None"
    return "[class]%s[resource_id]%s[text]%s[%s,%s,%s]" % (
        view.class_name or "None", view.resource_id or "None", text,
        "enabled" if view.enabled else "", "checked" if view.checked else "", "selected" if view.selected else "")


def content_state_id(activity: str, views: list[View]) -> str:
    """DroidBot's `state_str` recipe over these views."""
    raw = "%s{%s}" % (activity, ",".join(sorted({view_signature(v) for v in views})))
    return hashlib.md5(raw.encode("utf-8")).hexdigest()


def shown_views(views: list[View]) -> list[View]:
    """The views a uiautomator dump holds: the visible ones under visible parents, children lists cut to those
    (a view whose children are all shown is itself in the list, not a copy: views are not changed once read)."""
    by_index = {v.index: v for v in views}
    keep: set[int] = set()
    todo = [v for v in views if (v.parent < 0 or v.parent not in by_index) and v.visible]
    while todo:
        view = todo.pop()
        keep.add(view.index)
        todo.extend(by_index[c] for c in view.children if c in by_index and by_index[c].visible and c not in keep)
    return [v if keep.issuperset(v.children) else replace(v, children=[c for c in v.children if c in keep])
            for v in views if v.index in keep]


def shown_state_id(state: UIState) -> str:
    """The id a crawl gives a recorded state when it sees it through a dump."""
    return content_state_id(state.activity, shown_views(state.views))


def variant_id(state: UIState) -> str:
    """The concrete variant of a screen: what it shows (DroidBot's recipe over its shown views, no activity),
    the same for a recorded state and for a dump of it; 16 hex digits. A scrubbed state keeps the variant it
    showed before (`UIState.variant`, formats/privacy.scrub_state)."""
    return state.variant or content_state_id("", shown_views(state.views))[:VARIANT_HEX]


def version_code(dumpsys_package: str) -> int | None:
    """`versionCode=` of `dumpsys package PKG` output; None when absent."""
    m = VERSION_CODE_RE.search(dumpsys_package)
    return int(m.group("code")) if m else None


def version_name(dumpsys_package: str) -> str:
    """`versionName=` of `dumpsys package PKG` output; "" when absent or null."""
    m = VERSION_RE.search(dumpsys_package)
    name = m.group("name") if m else ""
    return "" if name == "null" else name
