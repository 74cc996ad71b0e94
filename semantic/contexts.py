"""A screen in its UTG context: the input of every summarizer, built from the graph's rows.

`build_contexts` takes an app's screens, elements and transitions and gives
each screen a `ScreenContext`: its elements, where acting on each leads
(destination names and their most distinctive labels), what leads to it
(arrivals: the labels of the elements acted on to get there, a generic 'OK'
resolved to what its dialog was for) and its breadcrumbs from the app's entry
screens ("More options › Settings › Delete all events").
"""
from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import asdict, dataclass, field

from appmem.graph.model import Element
from appmem.graph.vocabulary import BACK_WORDS, CONFIRM_WORDS, head, label_of, role_of

# Arrival labels that say nothing about the screen they open: look further back.
OPAQUE_ARRIVALS = CONFIRM_WORDS | {"an item", ""}
PATHS = 3  # breadcrumbs kept per screen
PATH_STEPS = 3  # labels per breadcrumb (the last ones before the screen)


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

    def content_hash(self) -> str:
        """Changes exactly when what a summary is made from changes."""
        body = json.dumps(asdict(self), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(body.encode("utf-8")).hexdigest()[:32]


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
                   transitions: list[TransitionRow]) -> list[ScreenContext]:
    """Every screen in its UTG context: where its elements lead (titles and
    distinctive labels of the destinations), what leads to it (the labels
    of the elements acted on to get there; a generic 'OK' is resolved to
    what the screen it was on was for, up to three steps back; an 'OK' that
    returns to the screen that opened its dialog is no way in), and its
    breadcrumbs: the last PATH_STEPS labels of the ways in, those starting
    nearest an entry screen (one nothing leads to) first."""
    by_screen: dict[str, list[Element]] = {s.id: [] for s in screens}
    for e in elements:
        by_screen.setdefault(e.screen_id, []).append(e)
    by_id = {e.id: e for e in elements}
    labels = {sid: [label_of(e) for e in els] for sid, els in by_screen.items()}
    counts: Counter[str] = Counter(l for ls in labels.values() for l in set(ls))
    forward: dict[str, set[str]] = {}
    edges: list[tuple[str, str, str]] = []
    for t in transitions:
        e = by_id.get(t.element_id)
        # Choosing an option or typing returns to an earlier screen: that says nothing about it.
        if t.source != t.target and e is not None and role_of(e) in ("tap", "long_tap"):
            forward.setdefault(t.source, set()).add(t.target)
            edges.append((t.source, t.target, head(label_of(e))))

    def opens(a: str, b: str) -> bool:
        """Screen `a` leads to screen `b` in one or two taps."""
        near = forward.get(a, set())
        return b in near or any(b in forward.get(n, set()) for n in near)

    incoming: dict[str, list[tuple[str, str]]] = {}
    for source, target, label in edges:
        low = label.lower()
        if low in BACK_WORDS:
            continue  # going back shows an earlier screen; it says nothing about it
        if low in OPAQUE_ARRIVALS and opens(target, source):
            continue  # confirming a dialog returns to the screen that opened it
        incoming.setdefault(target, []).append((source, label))

    def purposes(screen_id: str, depth: int, seen: frozenset[str]) -> Counter[str]:
        direct: Counter[str] = Counter()
        opaque: list[str] = []
        for source, label in incoming.get(screen_id, []):
            if label.lower() in OPAQUE_ARRIVALS:
                opaque.append(source)
            else:
                direct[label] += 1
        if not direct and depth < 3:
            for source in opaque:
                if source not in seen:
                    direct.update(purposes(source, depth + 1, seen | {source}))
        return direct

    # Entry screens: nothing leads to them but going back (the app's start, a
    # screen opened from outside). A breadcrumb that starts nearer one is preferred,
    # as AutoDroid keeps the way from the initial UI.
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
    far = len(screens) + 1
    memo: dict[tuple[str, int], list[tuple[int, tuple[str, ...]]]] = {}

    def paths(screen_id: str, steps: int) -> list[tuple[int, tuple[str, ...]]]:
        """(distance from an entry screen, labels): the taps (at most `steps` labels)
        that lead to the screen, those that start nearest an entry screen first."""
        if steps == 0:
            return [(distance.get(screen_id, far), ())]
        if (screen_id, steps) not in memo:
            memo[(screen_id, steps)] = [(far, ())]  # a cycle back to this screen adds nothing
            found: dict[tuple[str, ...], int] = {}
            for source, label in dict.fromkeys(incoming.get(screen_id, [])):
                step = () if label.lower() in OPAQUE_ARRIVALS else (label,)
                for start, prefix in paths(source, steps - len(step)):
                    path = prefix + step
                    if path and len(set(path)) == len(path):
                        found[path] = min(found.get(path, far), start)
            ranked = sorted(found.items(), key=lambda kv: (kv[1] + len(kv[0]), len(kv[0])))
            memo[(screen_id, steps)] = [(start, path) for path, start in ranked[:PATHS]] or \
                [(distance.get(screen_id, far), ())]
        return memo[(screen_id, steps)]

    titles = {s.id: s.title for s in screens}
    crumbs = {s.id: [list(p) for _, p in paths(s.id, PATH_STEPS) if p] for s in screens}
    # Named by the way in from nearest an entry screen first, then by the most frequent.
    arrivals = {s.id: list(dict.fromkeys([p[-1] for p in crumbs[s.id]] + [
        l for l, _ in purposes(s.id, 0, frozenset({s.id})).most_common(3)]))[:3] for s in screens}
    out = []
    for s in screens:
        destinations: dict[str, list[Destination]] = {}
        for t in transitions:
            if t.source == s.id and t.target != s.id and t.element_id in by_id:
                dest = destinations.setdefault(t.element_id, [])
                if all(d.screen_id != t.target for d in dest):
                    name = (arrivals.get(t.target) or [titles.get(t.target, "")])[0]
                    dest.append(Destination(t.target, name, distinctive_texts(labels.get(t.target, []), counts),
                                            t.action))
        out.append(ScreenContext(s.id, s.package, s.app_version, s.activity, s.title,
                                 sorted(by_screen.get(s.id, []), key=lambda e: e.id),
                                 {k: sorted(v, key=lambda d: d.screen_id) for k, v in sorted(destinations.items())},
                                 arrivals[s.id], crumbs[s.id]))
    return out


def distinctive_texts(labels: list[str], app_counts: Counter[str], limit: int = 4) -> list[str]:
    """The labels of a screen that are rarest across the app (what sets it apart), in screen order."""
    usable = [l for l in dict.fromkeys(labels) if l and l.lower() not in BACK_WORDS]
    ranked = set(sorted(usable, key=lambda l: (app_counts[l], usable.index(l)))[:limit])
    return [l for l in usable if l in ranked]
