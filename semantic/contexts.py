"""A screen in its UTG context: the input of every summarizer, built from the graph's rows.

`build_contexts` takes an app's screens, elements and transitions and gives
each screen a `ScreenContext`: its elements, where acting on each leads
(destination names and their most distinctive labels), what leads to it
(arrivals: the labels of the elements acted on to get there, a generic 'OK'
resolved to what its dialog was for) and its breadcrumbs from the app's entry
screens ("More options › Settings › Delete all events").

`ScreenContext.facts` is what every reader derives from a context (its name, each
element's label and role, whether it is a list of options), worked out once per
screen: a context is not changed once built.
"""
from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from functools import cached_property

from appmem.formats.ui import stable_id
from appmem.graph.model import Element
from appmem.graph.vocabulary import BACK_WORDS, CONFIRM_WORDS, head, humanize, label_of, role_of

# Arrival labels that say nothing about the screen they open: look further back.
OPAQUE_ARRIVALS = CONFIRM_WORDS | {"an item", ""}
PATHS = 3  # breadcrumbs kept per screen
PATH_STEPS = 3  # labels per breadcrumb (the last ones before the screen)
VIEW_SUFFIX = re.compile(r"(Activity|Fragment)$")


@dataclass
class Destination:
    """Where an action on an element was seen to lead."""

    screen_id: str
    title: str
    texts: list[str]  # the destination's most distinctive labels
    action: str = "tap"


@dataclass
class ScreenContext:
    id: str
    package: str
    app_version: str
    activity: str
    title: str
    elements: list[Element]
    destinations: dict[str, list[Destination]] = field(default_factory=dict)  # element id → where it leads
    arrivals: list[str] = field(default_factory=list)  # labels of the elements elsewhere that lead here
    # How the screen is reached (AutoDroid's "UI elements leading to U_i"): up to
    # PATHS label sequences, e.g. ["More options", "Settings", "Delete all events"].
    paths: list[list[str]] = field(default_factory=list)
    # Its elements seen acting without leaving it (a choice in a dialog that stays open, a field typed).
    stays: list[str] = field(default_factory=list)

    def content_hash(self) -> str:
        """Changes exactly when what a summary is made from changes (`stays` is not: it ranks, it says nothing)."""
        body = json.dumps({k: v for k, v in asdict(self).items() if k != "stays"}, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(body.encode("utf-8")).hexdigest()[:32]

    @cached_property
    def facts(self) -> ScreenFacts:
        """What readers derive from the screen, worked out on first use (not a field: not in the hash)."""
        return ScreenFacts.of(self)


@dataclass(frozen=True)
class ElementFacts:
    """An element as the summarizers read it: its label (and lower-cased), its role, its label's name part."""

    element: Element
    label: str
    low: str
    role: str
    head: str

    @classmethod
    def of(cls, e: Element) -> ElementFacts:
        label = label_of(e)
        return cls(e, label, label.lower(), role_of(e), head(label))


@dataclass(frozen=True)
class ScreenFacts:
    """A screen's derived facts: its title in plain words, its name (what it is for), its elements' facts in
    the context's order, their lower-cased labels, whether it is a list of options and whether a button confirms it."""

    title: str
    name: str
    elements: tuple[ElementFacts, ...]
    labels: frozenset[str]
    option_list: bool
    confirmed: bool

    @classmethod
    def of(cls, ctx: ScreenContext) -> ScreenFacts:
        elements = tuple(ElementFacts.of(e) for e in ctx.elements)
        labels = frozenset(f.low for f in elements)
        title = humanize(ctx.title)
        return cls(title, screen_name(ctx, title), elements, labels, is_option_list(ctx, elements),
                   any(f.low in CONFIRM_WORDS for f in elements))

    def of_element(self, e: Element) -> ElementFacts:
        """The facts of `e` (one of the screen's elements, else worked out now)."""
        return next((f for f in self._by_id.get(e.id, ()) if f.element is e), None) or ElementFacts.of(e)

    @cached_property
    def _by_id(self) -> dict[str, list[ElementFacts]]:
        out: dict[str, list[ElementFacts]] = {}
        for f in self.elements:
            out.setdefault(f.element.id, []).append(f)
        return out


def screen_name(ctx: ScreenContext, title: str) -> str:
    """What the screen is for: what leads to it, else its title (`title`, in plain words), else its activity."""
    if ctx.arrivals:
        return ctx.arrivals[0]
    return title or humanize(VIEW_SUFFIX.sub("", ctx.activity.rsplit(".", 1)[-1])) or "screen"


def is_option_list(ctx: ScreenContext, elements: tuple[ElementFacts, ...]) -> bool:
    """A dialog of choices (sounds, sizes, views): most of its elements are toggles."""
    usable = [f for f in elements if f.low not in BACK_WORDS]
    toggles = [f for f in usable if f.role == "toggle"]
    return bool(ctx.arrivals) and len(toggles) >= 2 and len(toggles) >= 0.6 * len(usable)


@dataclass
class ScreenRow:
    id: str
    package: str
    app_version: str
    activity: str
    title: str


@dataclass
class TransitionRow:
    source: str
    target: str
    element_id: str
    action: str = "tap"


def build_contexts(screens: list[ScreenRow], elements: list[Element],
                   transitions: list[TransitionRow], only: set[str] | None = None) -> list[ScreenContext]:
    """Every screen in its UTG context: where its elements lead (titles and
    distinctive labels of the destinations), what leads to it (the labels
    of the elements acted on to get there; a generic 'OK' is resolved to
    what the screen it was on was for, up to three steps back; an 'OK' that
    returns to the screen that opened its dialog is no way in), and its
    breadcrumbs: the last PATH_STEPS labels of the ways in, those starting
    nearest an entry screen (one nothing leads to) first. Linear in the
    app's elements and transitions, but for the ways in (bounded by PATH_STEPS). `only`: the ids of the
    screens wanted (each in the whole UTG's context; a tenant's view summarises its layer's screens alone)."""
    keys = _content_keys(screens, elements)
    by_screen = _elements_by_screen(screens, elements, keys)
    by_id = {e.id: e for e in elements}
    rank = _content_ranks(screens, by_screen, keys)
    ordered = sorted(screens, key=lambda s: rank[s.id])
    ways = _WaysIn(ordered, _incoming(_forward_taps(transitions, by_id), rank))
    crumbs = {s.id: ways.breadcrumbs(s.id) for s in ordered}
    arrivals = {s.id: ways.arrivals(s.id, crumbs[s.id]) for s in ordered}
    leads = _Leads(screens, by_screen, arrivals, rank)
    from_screen: dict[str, list[TransitionRow]] = {}
    stays: dict[str, set[str]] = {}
    for t in transitions:
        if t.element_id in by_id:
            if t.source != t.target:
                from_screen.setdefault(t.source, []).append(t)
            else:
                stays.setdefault(t.source, set()).add(t.element_id)
    return [ScreenContext(s.id, s.package, s.app_version, s.activity, s.title, by_screen.get(s.id, []),
                          leads.destinations(from_screen.get(s.id, [])), arrivals[s.id], crumbs[s.id],
                          sorted(stays.get(s.id, ())))
            for s in screens if only is None or s.id in only]


def _content_key(e: Element, package: str) -> str:
    """An element's key of its content alone: its structural key with the app's package left out (resource ids
    carry it), its texts and place, hashed (an order by it is as arbitrary as one by id, but the same in every
    copy)."""
    b = e.bounds
    return stable_id(e.key.replace(package, ""), e.text, e.content_desc, b.left, b.top, b.right, b.bottom)


def _content_keys(screens: list[ScreenRow], elements: list[Element]) -> dict[str, str]:
    """Each element's `_content_key`, by element id."""
    package = {s.id: s.package for s in screens}
    return {e.id: _content_key(e, package.get(e.screen_id, "")) for e in elements}


def _content_ranks(screens: list[ScreenRow], by_screen: dict[str, list[Element]], keys: dict[str, str]
                   ) -> dict[str, int]:
    """Each screen's place in an order of what it shows (its activity and title with the app's package left out,
    its elements' content keys, hashed), its id last. Whatever a context says is made in this order, or in the
    elements' `_content_key` order, never in that of the ids: ids hash the package, and a renamed copy of an
    app (the same screens under another package) must get the very same texts, which the content-keyed vector
    cache then embeds once."""
    def content(s: ScreenRow) -> tuple[str, str]:
        shown = [keys[e.id] for e in by_screen.get(s.id, [])]
        return stable_id(s.activity.replace(s.package, ""), s.title.replace(s.package, ""), *shown), s.id

    return {s.id: i for i, s in enumerate(sorted(screens, key=content))}


def _elements_by_screen(screens: list[ScreenRow], elements: list[Element], keys: dict[str, str]
                        ) -> dict[str, list[Element]]:
    """Each screen's elements, in the order of their content keys (`keys`), then their ids."""
    by_screen: dict[str, list[Element]] = {s.id: [] for s in screens}
    for e in elements:
        by_screen.setdefault(e.screen_id, []).append(e)
    for els in by_screen.values():
        els.sort(key=lambda e: (keys[e.id], e.id))
    return by_screen


def _forward_taps(transitions: list[TransitionRow], by_id: dict[str, Element]) -> list[tuple[str, str, str]]:
    """(source, target, label) of the taps that open another screen. Choosing an option or typing
    returns to an earlier screen: that says nothing about it."""
    edges = []
    for t in transitions:
        e = by_id.get(t.element_id)
        if t.source != t.target and e is not None and role_of(e) in ("tap", "long_tap"):
            edges.append((t.source, t.target, head(label_of(e))))
    return edges


def _incoming(edges: list[tuple[str, str, str]], rank: dict[str, int]) -> dict[str, list[tuple[str, str]]]:
    """Per screen, the (source, label) taps that are ways into it: going back shows an earlier screen, and
    confirming a dialog returns to the screen that opened it; neither says anything about it. In order: the
    taps from screens it does not open itself first (a call's 'End call' returns to the contact it was made
    from: a way back, not what the contact's page is for), then by the sources' `rank` and the labels."""
    forward: dict[str, set[str]] = {}
    for source, target, _ in edges:
        forward.setdefault(source, set()).add(target)

    def opens(a: str, b: str) -> bool:
        """Screen `a` leads to screen `b` in one or two taps."""
        near = forward.get(a, set())
        return b in near or any(b in forward.get(n, set()) for n in near)

    incoming: dict[str, list[tuple[str, str]]] = {}
    for source, target, label in edges:
        low = label.lower()
        if low in BACK_WORDS or (low in OPAQUE_ARRIVALS and opens(target, source)):
            continue
        incoming.setdefault(target, []).append((source, label))
    for target, sources in incoming.items():
        sources.sort(key=lambda way: (opens(target, way[0]), rank.get(way[0], len(rank)), way[1]))
    return incoming


def _entry_distances(screens: list[ScreenRow], incoming: dict[str, list[tuple[str, str]]]) -> dict[str, int]:
    """Taps from the nearest entry screen: one nothing leads to but going back (the app's start, a screen
    opened from outside). A breadcrumb that starts nearer one is preferred, as AutoDroid keeps the way
    from the initial UI."""
    leads: dict[str, list[str]] = {}
    for target, sources in sorted(incoming.items()):
        for source, _ in sources:
            leads.setdefault(source, []).append(target)
    distance = {s.id: 0 for s in screens if s.id not in incoming}
    frontier = list(distance)
    while frontier:
        frontier = list(dict.fromkeys(b for a in frontier for b in leads.get(a, []) if b not in distance))
        for b in frontier:
            distance[b] = min(distance[a] for a, _ in incoming[b] if a in distance) + 1
    return distance


class _WaysIn:
    """What leads to each screen: its breadcrumbs and its arrivals (what it was opened for)."""

    def __init__(self, screens: list[ScreenRow], incoming: dict[str, list[tuple[str, str]]]):
        self.incoming = incoming
        self.distance = _entry_distances(screens, incoming)
        self.far = len(screens) + 1
        self.memo: dict[tuple[str, int], list[tuple[int, tuple[str, ...]]]] = {}

    def breadcrumbs(self, screen_id: str) -> list[list[str]]:
        return [list(p) for _, p in self.paths(screen_id, PATH_STEPS) if p]

    def arrivals(self, screen_id: str, crumbs: list[list[str]]) -> list[str]:
        """Named by the way in from nearest an entry screen first, then by the most frequent."""
        frequent = [label for label, _ in self.purposes(screen_id, 0, frozenset({screen_id})).most_common(3)]
        return list(dict.fromkeys([p[-1] for p in crumbs] + frequent))[:3]

    def purposes(self, screen_id: str, depth: int, seen: frozenset[str]) -> Counter[str]:
        """The labels of the taps into the screen; for a screen only opaque ones ('OK') lead to, those of
        the screens they were on, up to three steps back."""
        direct: Counter[str] = Counter()
        opaque: list[str] = []
        for source, label in self.incoming.get(screen_id, []):
            if label.lower() in OPAQUE_ARRIVALS:
                opaque.append(source)
            else:
                direct[label] += 1
        if not direct and depth < 3:
            for source in opaque:
                if source not in seen:
                    direct.update(self.purposes(source, depth + 1, seen | {source}))
        return direct

    def paths(self, screen_id: str, steps: int) -> list[tuple[int, tuple[str, ...]]]:
        """(distance from an entry screen, labels): the taps (at most `steps` labels)
        that lead to the screen, those that start nearest an entry screen first."""
        if steps == 0:
            return [(self.distance.get(screen_id, self.far), ())]
        if (screen_id, steps) not in self.memo:
            self.memo[(screen_id, steps)] = [(self.far, ())]  # a cycle back to this screen adds nothing
            found: dict[tuple[str, ...], int] = {}
            for source, label in dict.fromkeys(self.incoming.get(screen_id, [])):
                step = () if label.lower() in OPAQUE_ARRIVALS else (label,)
                for start, prefix in self.paths(source, steps - len(step)):
                    path = prefix + step
                    if path and len(set(path)) == len(path):
                        found[path] = min(found.get(path, self.far), start)
            ranked = sorted(found.items(), key=lambda kv: (kv[1] + len(kv[0]), len(kv[0])))
            self.memo[(screen_id, steps)] = [(start, path) for path, start in ranked[:PATHS]] or \
                [(self.distance.get(screen_id, self.far), ())]
        return self.memo[(screen_id, steps)]


class _Leads:
    """Where a screen's elements lead: each destination named by its arrival (else its title) and shown
    by its most distinctive labels, worked out once per destination."""

    def __init__(self, screens: list[ScreenRow], by_screen: dict[str, list[Element]], arrivals: dict[str, list[str]],
                 rank: dict[str, int]):
        self.rank = rank
        self.labels = {sid: [label_of(e) for e in els] for sid, els in by_screen.items()}
        self.counts: Counter[str] = Counter(l for ls in self.labels.values() for l in set(ls))
        self.titles = {s.id: s.title for s in screens}
        self.arrivals = arrivals
        self.shown: dict[str, list[str]] = {}

    def texts(self, screen_id: str) -> list[str]:
        if screen_id not in self.shown:
            self.shown[screen_id] = distinctive_texts(self.labels.get(screen_id, []), self.counts)
        return self.shown[screen_id]

    def destinations(self, transitions: list[TransitionRow]) -> dict[str, list[Destination]]:
        """Element id → where acting on it leads, from one screen's `transitions` to other screens."""
        out: dict[str, list[Destination]] = {}
        for t in transitions:
            dest = out.setdefault(t.element_id, [])
            if all(d.screen_id != t.target for d in dest):
                name = (self.arrivals.get(t.target) or [self.titles.get(t.target, "")])[0]
                dest.append(Destination(t.target, name, list(self.texts(t.target)), t.action))
        far = len(self.rank)
        return {k: sorted(v, key=lambda d: (self.rank.get(d.screen_id, far), d.screen_id)) for k, v in sorted(out.items())}


def distinctive_texts(labels: list[str], app_counts: Counter[str], limit: int = 4) -> list[str]:
    """The labels of a screen that are rarest across the app (what sets it apart), in screen order."""
    usable = [l for l in dict.fromkeys(labels) if l and l.lower() not in BACK_WORDS]
    order = {l: i for i, l in enumerate(usable)}
    ranked = set(sorted(usable, key=lambda l: (app_counts[l], order[l]))[:limit])
    return [l for l in usable if l in ranked]
