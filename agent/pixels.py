"""Locate a screenshot's reading (formats/screenshot.py) among an app's remembered screens, and place the
memory's elements in the screenshot's own pixels.

A reading has no classes, ids or structure, only text lines and boxes, so the match is on what memory
remembers a person would see: the texts each screen's recorded states showed (titles, static labels, the
elements' texts, a button's caption in its child: graph/screens.py `shown_texts`, kept on each state) and
its elements' texts, each with the box it had, compared by their `shape` (normalised, each digit read as 0:
a clock, a count or a date changes, where and how it is written does not). A screen whose states kept no
texts (an older memory) has its elements' texts and its title instead. The screenshot is scaled to memory's
coordinates by width (`scale`: a 720-wide phone's screenshot reads as the 1080-wide device the memory was
recorded on; a taller screen shows more below). Every text line of the screenshot that reads like a text
somewhere in the app (the app's vocabulary) is evidence: a screen scores a weighted Jaccard similarity of
what it remembers and those lines. A text mostly of digits weighs `data_w` (it is another on each visit: it
counts when read and is not missed when not); a text only some of a screen's states showed (a list's
contents, what a run typed) weighs the share that did, both where it is expected and where its line is read;
a placeholder the privacy scrubber left for data (a list row) is not expected at all. A remembered text
found where it was remembered counts in full, found elsewhere (a list scrolled) `place_lost`, and every such
line that matched none of the screen's texts counts against it (the reader keeps only a dimmed screen's
dialog, so what is left is all the screen). A screen that expects no text fits a reading with no known line
(`empty`: a clock whose digits OCR misreads). The layout adds what text cannot tell (screens with little text,
one screen in several languages), from the memory's remembered bounds: the share of the screen's element boxes
that something drawn in the screenshot lies in (a row, an icon, a field where the screen has one), weighted
`layout_w`, and the share of the screenshot's text lines that lie in one of its element boxes (a list's rows
hold its lines), weighted `cover_w`. Where screens look alike, the one the recordings reached more often is
likelier (`seen_w`). At least `similar_min` is `similar` (pixels never give an `exact` match: no signature can
be read from them); below, `unknown`. The weights are chosen leave-one-app-out by bench/pixels.py.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from appmem.agent.appgraph import AppGraph
from appmem.contract import Plan
from appmem.formats.privacy import PLACEHOLDER
from appmem.formats.screenshot import BLOCK_CLASS, normal, same_text, text_views
from appmem.formats.ui import Bounds, UIState, View
from appmem.graph.model import Element
from appmem.graph.store import GraphStore

TEXT_MAX = 40  # characters (normalised): a longer text is content, not a label
NEAR_DP = 32  # how far (in dp of the memory's screen) a text may sit from its remembered box
CANDIDATES = 5
PART_MAX = 0.5  # an element box covering more of the screen (a scrolling pane, a root) explains no line
DP_WIDTH = 360
DEFAULT_WIDTH = 1080


@dataclass(frozen=True)
class PixelMatch:
    """How a reading is weighed against a screen (bench/pixels.py chooses them leave-one-app-out)."""

    layout_w: float = 0.25  # how much the layout (element boxes with something drawn in them) adds to the texts' score
    cover_w: float = 0.25  # how much the share of text lines inside the screen's element boxes adds
    place_lost: float = 0.5  # what a remembered text read far from where it was remembered counts
    similar_min: float = 0.2  # the least score that is `similar`
    data_w: float = 0.3  # the weight of a text mostly of digits (a clock, a count: it changes between visits)
    seen_w: float = 0.05  # how much how often the recordings reached a screen adds (what ties break on)
    empty: float = 1.0  # the text score of a screen that remembers no text (or only data) when no line reads any


@dataclass(frozen=True)
class Remembered:
    """A text memory expects on a screen: an element's or another view's (with its box), or the screen's title
    (no box)."""

    text: str
    box: Bounds | None
    varies: bool = False  # another on each visit (a clock, a count): evidence only when read
    often: float = 1.0  # the share of the screen's recorded states that showed it (1: an older memory's)


def shown_of(store: GraphStore, package: str) -> dict[str, list[Remembered]]:
    """Screen id → the texts its recorded states showed (graph/screens.py `shown_texts`), each once, where it
    was first seen and with the share of the screen's states that showed it: a title or a static label is on
    every visit, a text a list row or a run typed on few. Screens whose states kept no texts (written by an
    older appmem) are not in it."""
    states: Counter[str] = Counter()
    counts: dict[str, Counter[str]] = {}
    first: dict[tuple[str, str], Bounds] = {}
    for row in store.read("pixel_shown_texts", packages=[package]):
        sid, boxes = row["screen_id"], row["boxes"] or []
        states[sid] += 1
        texts = {shape(t): Bounds(*boxes[4 * i:4 * i + 4]) for i, t in enumerate(row["texts"] or [])
                 if shape(t) and len(boxes) >= 4 * i + 4}
        for text, box in texts.items():
            counts.setdefault(sid, Counter())[text] += 1
            first.setdefault((sid, text), box)
    return {sid: [Remembered(t, first[sid, t], is_data(t), n / states[sid]) for t, n in counts.get(sid, {}).items()]
            for sid in states}


class AppTexts:
    """What an app's remembered screens show a person, read once per loaded graph: the texts each screen's states
    showed (`shown_of`) and its element texts (`expected`), and its element boxes."""

    def __init__(self, graph: AppGraph, package: str, shown: dict[str, list[Remembered]]):
        self.package = package
        self.screens: dict[str, list[Remembered]] = {}
        self.boxes: dict[str, list[Bounds]] = {}  # each screen's element boxes, one per place
        for sid, row in graph.screens.items():
            if row.get("package") != package or not row.get("signature"):
                continue
            self.screens[sid] = expected(graph.screen_elements(sid), shown.get(sid), row.get("title") or "")
            self.boxes[sid] = sorted({e.bounds for e in graph.screen_elements(sid) if e.bounds.area},
                                     key=lambda b: b.as_list())
        self.width = self.width_of(graph, package)
        whole = self.width * max((b.bottom for boxes in self.boxes.values() for b in boxes), default=self.width)
        self.parts = {sid: [b for b in boxes if b.area <= PART_MAX * whole] for sid, boxes in self.boxes.items()}
        self.varying = {r.text: r.varies for shown in self.screens.values() for r in shown}
        self.often: dict[str, float] = {}  # a text's largest share on any screen: what reading it is worth
        for remembered_texts in self.screens.values():
            for r in remembered_texts:
                self.often[r.text] = max(self.often.get(r.text, 0.0), r.often)
        reached = Counter()
        for out in graph.edges.values():
            for edge in out:
                reached[edge.target] += edge.successes
        most = math.log1p(max((reached[s] for s in self.screens), default=0))
        self.seen = {sid: math.log1p(reached[sid]) / most if most else 0.0 for sid in self.screens}

    @staticmethod
    def width_of(graph: AppGraph, package: str) -> int:
        """The width of the screen the app was recorded on: as far right as its elements reach."""
        return max((e.bounds.right for e in graph.elements.values() if graph.screens.get(e.screen_id, {}).get(
            "package") == package), default=0) or DEFAULT_WIDTH


    @cached_property
    def vocabulary(self) -> list[str]:
        return sorted({r.text for shown in self.screens.values() for r in shown})

    def known(self, lines: list[View]) -> dict[int, set[str]]:
        """Each line of the reading (by view index) → the app's texts it reads as (lines reading none left out)."""
        out = {}
        for line in lines:
            seen = shape(line.text)
            read = {t for t in self.vocabulary if same_text(seen, t)}
            if read:
                out[line.index] = read
        return out


def shape(text: str) -> str:
    """A text as compared across OCR and memory: normalised, each digit read as 0."""
    return "".join("0" if c.isdigit() else c for c in normal(text))


def weight(varies: bool, weights: PixelMatch, often: float = 1.0) -> float:
    """What reading a text is worth: less when it changes between visits (`data_w`), or when only some of the
    screen's states showed it (`often`)."""
    return (weights.data_w if varies else 1.0) * often


def is_data(text: str) -> bool:
    """Whether a shaped text is mostly digits: a time, a count, a date (another on each visit)."""
    return text.count("0") * 2 >= len(text)


def shows(e: Element) -> bool:
    """Whether an element's text can tell its screen: not a long text (content), not a password, not a
    placeholder the privacy scrubber left for data (a list row's text, a number). A field's text counts (most
    often its hint, the same on each visit)."""
    first = e.text.split("\n", 1)[0]
    return bool(normal(first)) and len(normal(first)) <= TEXT_MAX and not PLACEHOLDER.search(first) \
        and "password" not in e.flags


def expected(elements: list[Element], shown: list[Remembered] | None, title: str) -> list[Remembered]:
    """What a screen shows a person: the texts its states showed (`shown`, each weighed by how many did), then
    its elements' texts they did not hold. A screen whose states kept none (`shown` None: an older memory) has its
    elements' texts and its title instead (with `shown`, the title is among them when the screen shows it; else
    it is the activity's name, which no screenshot shows)."""
    out = list(shown or [])
    have = {r.text for r in out}
    for e in elements:
        if shows(e) and (r := remembered(e)).text not in have:
            out.append(r)
            have.add(r.text)
    text = shape(title)
    if shown is None and text and not PLACEHOLDER.search(title) and text not in have:
        out.append(Remembered(text, None, is_data(text)))
    return out


def remembered(e: Element) -> Remembered:
    """An element's text as memory expects to read it (mostly digits: it varies)."""
    text = shape(e.text.split("\n", 1)[0])
    return Remembered(text, e.bounds, is_data(text))


def app_texts(store: GraphStore, graph: AppGraph, package: str) -> AppTexts:
    """The app's texts, kept with the loaded graph (read again only when the graph is: a new graph is loaded
    whenever the app's memory changes)."""
    kept = graph.__dict__.setdefault("_pixel_texts", {})
    if package not in kept:
        kept[package] = AppTexts(graph, package, shown_of(store, package))
    return kept[package]


def scale(state: UIState, texts: AppTexts) -> float:
    """Screenshot pixels per memory pixel."""
    return state.width / texts.width


def locate_pixels(store: GraphStore, graph: AppGraph, package: str, state: UIState,
                  weights: PixelMatch = PixelMatch()) -> dict[str, Any]:
    """{"screen_id", "match": similar|unknown, "score", "candidates"} for a reading of a screenshot."""
    texts = app_texts(store, graph, package)
    lines = {v.index: v for v in text_views(state)}
    known = texts.known(list(lines.values()))
    ratio = scale(state, texts)
    near = NEAR_DP * texts.width / DP_WIDTH
    blocks = np.array([v.bounds.as_list() for v in state.views if v.class_name == BLOCK_CLASS], dtype=float)
    line_w = {i: max(weight(texts.varying[t], weights, texts.often[t]) for t in reads) for i, reads in known.items()}
    scored = []
    for sid, shown in texts.screens.items():
        if not shown and not texts.boxes[sid]:
            continue
        hits, expected, used = matches(shown, {i: lines[i] for i in known}, known, ratio, near, weights)
        total = expected + sum(line_w[i] for i in set(known) - used)
        text = hits / total if total > 0 else weights.empty
        score = (text + weights.layout_w * layout(texts.parts[sid], blocks, ratio)
                 + weights.cover_w * covered(texts.parts[sid], list(lines.values()), ratio)
                 + weights.seen_w * texts.seen[sid]) / (1 + weights.layout_w + weights.cover_w)
        scored.append((round(score, 4), sid))
    if not scored:
        return {"screen_id": None, "match": "unknown", "score": 0.0, "candidates": []}
    scored.sort(key=lambda s: (-s[0], s[1]))
    candidates = [{"screen_id": sid, "score": score} for score, sid in scored[:CANDIDATES]]
    best_score, best = scored[0]
    if best_score >= weights.similar_min:
        return {"screen_id": best, "match": "similar", "score": best_score, "candidates": candidates}
    return {"screen_id": None, "match": "unknown", "score": best_score, "candidates": candidates}


def matches(shown: list[Remembered], lines: dict[int, View], known: dict[int, set[str]], ratio: float,
            near: float, weights: PixelMatch) -> tuple[float, float, set[int]]:
    """How much of `shown` the lines show (each text its weight, `place_lost` of it when read far from where it
    was remembered), how much was expected (every text's weight; a data text's only when read: a clock's digits
    are often misread, and its absence tells nothing), and the lines used."""
    hits, expected, used = 0.0, 0.0, set()
    for r in shown:
        worth = weight(r.varies, weights, r.often)
        expected += 0.0 if r.varies else worth
        best, where = 0.0, None
        for index, reads in known.items():
            if index in used or r.text not in reads:
                continue
            value = 1.0 if r.box is None or close(lines[index].bounds, r.box, ratio, near) else weights.place_lost
            if value > best:
                best, where = value, index
        if where is not None:
            hits += best * worth
            expected += worth if r.varies else 0.0
            used.add(where)
    return hits, expected, used


def layout(boxes: list[Bounds], drawn: np.ndarray, ratio: float) -> float:
    """The share of a screen's element boxes (memory pixels) that something drawn in the screenshot lies in:
    the centre of a block smaller than the box (`drawn`: their [left, top, right, bottom] rows, the
    screenshot's pixels). A screen whose rows, icons or fields are where the screenshot has none scores less."""
    if not boxes or not len(drawn):
        return 0.0
    mine = np.array([b.as_list() for b in boxes], dtype=float) * ratio
    x, y = (drawn[:, 0] + drawn[:, 2]) / 2, (drawn[:, 1] + drawn[:, 3]) / 2
    within = (mine[:, None, 0] <= x) & (x < mine[:, None, 2]) & (mine[:, None, 1] <= y) & (y < mine[:, None, 3])
    return float((within & (areas(drawn)[None, :] < areas(mine)[:, None])).any(axis=1).mean())


def areas(boxes: np.ndarray) -> np.ndarray:
    return (boxes[..., 2] - boxes[..., 0]) * (boxes[..., 3] - boxes[..., 1])


def covered(parts: list[Bounds], lines: list[View], ratio: float) -> float:
    """The share of the reading's text lines that lie in one of a screen's element boxes (memory pixels)."""
    if not lines:
        return 0.0
    return sum(any(inside(line.bounds, box, ratio) for box in parts) for line in lines) / len(lines)


def inside(line: Bounds, area: Bounds, ratio: float) -> bool:
    """Whether a line's centre (screenshot pixels) lies in `area` (memory pixels)."""
    x, y = line.center
    return area.contains(round(x / ratio), round(y / ratio))


def close(line: Bounds, box: Bounds, ratio: float, near: float) -> bool:
    """Whether a line (screenshot pixels) sits on or near a remembered box (memory pixels)."""
    x, y = line.center
    x, y = x / ratio, y / ratio
    return box.left - near <= x <= box.right + near and box.top - near <= y <= box.bottom + near


def tap_point(store: GraphStore, graph: AppGraph, package: str, state: UIState, element: Element,
              on_start: bool) -> list[int]:
    """Where to tap `element` in the screenshot's pixels: on the screen the screenshot shows (`on_start`),
    the centre of the line that reads its text near where memory saw it; else its remembered centre, scaled."""
    texts = app_texts(store, graph, package)
    ratio = scale(state, texts)
    wanted = normal(element.text.split("\n", 1)[0])
    if on_start and wanted:
        near = NEAR_DP * texts.width / DP_WIDTH
        for line in text_views(state):
            if same_text(line.text, wanted) and close(line.bounds, element.bounds, ratio, near):
                return list(line.bounds.center)
    x, y = element.bounds.center
    return [round(x * ratio), round(y * ratio)]


def with_taps(plan: Plan, store: GraphStore, graph: AppGraph, state: UIState) -> Plan:
    """The plan with each step's element given its `tap`: [x, y] in the screenshot's own pixels."""
    start = plan.start.screen_id if plan.start is not None else None
    steps = []
    for step in plan.steps:
        element = graph.elements.get(step.element.id) if step.element is not None else None
        if element is not None and step.package == state.package:
            tap = tap_point(store, graph, state.package, state, element, step.screen_id == start)
            step = step.model_copy(update={"element": step.element.model_copy(update={"tap": tap})})
        steps.append(step)
    return plan.model_copy(update={"steps": steps})

