"""Locate an agent's screen in an app's memory: exact signature, else the most similar screen, else unknown.

Input is a uiautomator XML dump (formats/uixml.py), an AutoDroid HTML state
(formats/autodroid_html.py), a screenshot (formats/screenshot.py: matched on
its texts and where they are, agent/pixels.py), or a screen id. The exact match recomputes the
content-free signature the importers store (graph/screens.py); a dump does not
name its activity, so each activity of the app is tried. Otherwise the state's
element set is compared with every screen of the app: the Jaccard similarity
of (class, resource id, static label) tokens, plus ACTIVITY_BONUS when the
activity agrees. At least SIMILAR_MIN is `similar`; below, `unknown` with the
nearest candidates and their scores.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any, Callable

from appmem.agent.appgraph import AppGraph, token
from appmem.agent.pixels import locate_pixels
from appmem.errors import InputFormatError, InvalidInput, NotFound
from appmem.formats.ui import UIState
from appmem.graph.screens import elements_of, screen_of, screen_signature
from appmem.graph.store import GraphStore
from appmem.ingest.autodroid import activity_of
from appmem.formats.autodroid_html import HtmlSyntaxError, parse_html, state_from_elements
from appmem.formats.screenshot import ReaderOptions, screen_reader
from appmem.formats.uixml import parse_hierarchy

SIMILAR_MIN = 0.5
ACTIVITY_BONUS = 0.1
CANDIDATES = 5


def html_activity(package: str, activity: str | None = None) -> str:
    """An AutoDroid HTML state names no activity: it gets the one the AutoDroid importer gives the app's
    screens (or the one the agent sent), so that it matches them exactly."""
    return activity or activity_of(package)


def html_reader(html: str, activity: str | None = None, where: str = "screen_html") -> Callable[[str], UIState]:
    """An AutoDroid HTML state parsed once, read as a screen of any package (`package -> UIState`): app
    choice reads one screen as every app's. A malformed state fails here, naming `where`."""
    try:
        elements = parse_html(html)
    except (HtmlSyntaxError, ValueError) as exc:
        raise InputFormatError(where, f"unparsable AutoDroid state: {exc}") from None

    def in_package(package: str) -> UIState:
        try:
            return state_from_elements(elements, package, html_activity(package, activity))
        except (HtmlSyntaxError, ValueError) as exc:
            raise InputFormatError(where, f"unparsable AutoDroid state: {exc}") from None
    return in_package


def state_from_html(html: str, package: str, where: str = "screen_html", activity: str | None = None) -> UIState:
    return html_reader(html, activity, where)(package)


def state_from_xml(xml: str, package: str, where: str = "screen_xml", activity: str | None = None) -> UIState:
    """A dump names no activity: the state gets the agent's, else none (locate tries the app's activities)."""
    return parse_hierarchy(xml, package, activity or "", where)


def agent_screen(package: str | None, xml: str | None = None, html: str | None = None, activity: str | None = None,
                 where: str | None = None, screenshot: bytes | None = None) -> UIState:
    """The agent's current screen, the one reader every front end uses: a uiautomator dump (in the app its
    nodes name, which wins over `package`: a launcher, a permission page), AutoDroid HTML or a screenshot's
    PNG or JPEG bytes (in `package`)."""
    if screenshot is not None:
        if not package:
            raise InvalidInput(where or "screenshot", "a screenshot names no app: name the app it shows")
        return screen_reader(ReaderOptions()).read(screenshot, package, activity or "", where or "screenshot")
    if xml:
        try:
            node = next(ET.fromstring(xml).iter("node"), None)
        except ET.ParseError as exc:
            raise InputFormatError(where or "screen_xml", f"malformed XML: {exc}") from None
        package = (node.get("package") if node is not None else None) or package
        if not package:
            raise InvalidInput(where or "screen_xml", "no package: name the app or send a dump whose nodes name it")
        return state_from_xml(xml, package, where or "screen_xml", activity)
    if html:
        if not package:
            raise InvalidInput(where or "screen_html", "HTML screens need the app's package")
        return state_from_html(html, package, where or "screen_html", activity)
    raise InvalidInput(where or "request", "send screen_xml, screen_html or screenshot")


def tokens_of_state(state: UIState) -> set[str]:
    screen = screen_of(state, state.package, "")
    return {token(e) for e in elements_of(state, screen).values()}


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def locate(store: GraphStore, package: str, screen: UIState | str, graph: AppGraph | None = None) -> dict[str, Any]:
    """{"screen_id", "match": exact|similar|unknown, "score", "candidates": [{"screen_id", "score"}]}."""
    graph = graph or AppGraph.load(store, [package])
    own = {sid: row for sid, row in graph.screens.items() if row.get("package") == package and row.get("signature")}
    if not own:
        raise NotFound(f"{package}: no screens in memory for this app: import or crawl it first")
    if isinstance(screen, str):
        if screen not in graph.screens:
            raise NotFound(f"{screen}: not a screen of {package}")
        return {"screen_id": screen, "match": "exact", "score": 1.0, "candidates": []}
    if screen.from_pixels:
        return locate_pixels(store, graph, package, screen)
    activities = [screen.activity] if screen.activity else sorted({r["activity"] for r in own.values()})
    by_signature = {r["signature"]: sid for sid, r in own.items()}
    for activity in activities:
        signature = screen_signature(UIState(screen.package, activity, screen.views, structure=screen.structure))
        if signature in by_signature:
            return {"screen_id": by_signature[signature], "match": "exact", "score": 1.0, "candidates": []}
    mine = tokens_of_state(screen)
    scored = []
    for sid, row in own.items():
        score = jaccard(mine, graph.screen_tokens.get(sid, frozenset()))
        if screen.activity and row["activity"] == screen.activity:
            score += ACTIVITY_BONUS
        scored.append((round(min(1.0, score), 4), sid))
    scored.sort(key=lambda s: (-s[0], s[1]))
    candidates = [{"screen_id": sid, "score": score} for score, sid in scored[:CANDIDATES]]
    best_score, best = scored[0]
    if best_score >= SIMILAR_MIN:
        return {"screen_id": best, "match": "similar", "score": best_score, "candidates": candidates}
    return {"screen_id": None, "match": "unknown", "score": best_score, "candidates": candidates}
