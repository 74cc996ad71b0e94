"""Re-grounding a planned element on a fresh uiautomator dump through its locator queue.

Locators are XPath queries over a tree whose tags are view classes (the form
graph/screens.py writes: `//android.widget.Button[@text='OK']`,
`/hierarchy/android.widget.FrameLayout[1]/...`); a raw dump has `<node class=…>`
tags, so it is rewritten that way first. The queue is tried most precise first
(AutoDroid-V2's dependency-aware locating): the first locator that matches wins,
and among its matches the node nearest the remembered bounds.
"""
from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from lxml import etree

from appmem.formats.ui import Bounds, View
from appmem.formats.uixml import parse_bounds, parse_hierarchy
from appmem.graph.vocabulary import clip, id_words

_NAME = re.compile(r"^[A-Za-z_][\w.\-]*$")


def class_tree(xml: str) -> etree._Element:
    """The dump with each node's tag replaced by its class (uiautomator → locator form)."""
    root = etree.fromstring(xml.encode("utf-8"), parser=etree.XMLParser(resolve_entities=False, no_network=True,
                                                                          huge_tree=False))
    for node in root.iter("node"):
        cls = node.get("class") or ""
        if _NAME.match(cls):
            node.tag = cls
    return root


def bounds_of(node: etree._Element) -> Bounds | None:
    return parse_bounds(node.get("bounds"))


def _distance(b: Bounds, remembered: list[int] | None) -> int:
    if not remembered:
        return 0
    return sum(abs(a - c) for a, c in zip(b.as_list(), remembered))


def ground(element: dict[str, Any], xml: str, avoid: Collection[list[int]] = ()) -> tuple[Bounds, str] | None:
    """(bounds, locator that matched) of the planned element on this dump, or None; among the first matching
    locator's views, one whose bounds are not in `avoid` (views the step already failed on) comes first."""
    root = class_tree(xml)
    for locator in element.get("locators") or []:
        try:
            nodes = root.xpath(locator)
        except etree.XPathError:
            continue
        found = [(b, n) for n in nodes if isinstance(n, etree._Element) and (b := bounds_of(n)) and b.area > 0]
        if found:
            best = min(found, key=lambda bn: (bn[0].as_list() in avoid, _distance(bn[0], element.get("bounds"))))
            return best[0], locator
    return None


def find_text(xml: str, text: str) -> Bounds | None:
    """The row showing `text` (a slot's value: a contact, a file), if it is on this screen."""
    if not text:
        return None
    for node in class_tree(xml).iter():
        if node.get("text") == text or node.get("content-desc") == text:
            b = bounds_of(node)
            if b and b.area > 0:
                return b
    return None


def scrollable(xml: str) -> Bounds | None:
    """The largest scrollable view of the dump (where a list's rows come from)."""
    best = None
    for node in class_tree(xml).iter():
        if node.get("scrollable") == "true" and (b := bounds_of(node)) and (best is None or b.area > best.area):
            best = b
    return best


def node_at(xml: str, bounds: Bounds) -> dict[str, Any]:
    """What the dump says about the view acted on: the deepest node with exactly these bounds."""
    want = bounds.as_list()
    found: dict[str, Any] = {}
    for node in etree.fromstring(xml.encode("utf-8"), parser=etree.XMLParser(resolve_entities=False)).iter("node"):
        b = bounds_of(node)
        if b is not None and b.as_list() == want:
            found = {"text": node.get("text") or "", "content_desc": node.get("content-desc") or "",
                     "resource_id": node.get("resource-id") or "", "class_name": node.get("class") or "",
                     "bounds": want}
    return found


def shows(views: list[View], view: View, most: int = 3) -> str:
    """What a view shows: its own text, else the texts of the views inside it (a menu row is a clickable
    layout whose label is a TextView child), at most `most` of them, each clipped."""
    if view.text:
        return view.text
    by_index = {v.index: v for v in views}
    texts, todo = [], list(view.children)
    while todo and len(texts) < most:
        inner = by_index.get(todo.pop(0))
        if inner is not None:
            texts += [clip(inner.text or inner.content_desc, 160)] if inner.text or inner.content_desc else []
            todo += inner.children
    return " · ".join(texts)


def view_words(views: list[View], view: View) -> str:
    """What a view says to a person (what it shows, its description) and its id's words: what the runtime
    judges a step's risk by on the device, whatever memory called the element."""
    return " ".join((shows(views, view), view.content_desc, id_words(view.resource_id)))


def shown_at(xml: str, bounds: Bounds) -> str:
    """`view_words` of the view at `bounds` in the dump (the interactive one, when views share them)."""
    views = parse_hierarchy(xml, "", "").views
    here = [v for v in views if v.bounds == bounds]
    view = next((v for v in here if v.interactive), here[-1] if here else None)
    return view_words(views, view) if view else ""


def drawn_package(xml: str) -> str:
    """The package of the window a dump shows on top: its first node's (what agent/locate.agent_screen reads)."""
    try:
        return next((p for node in class_tree(xml).iter() if (p := node.get("package"))), "")
    except etree.XMLSyntaxError:
        return ""  # a bad dump: memory's locate says what is wrong with it
