"""An app's UTG in memory: screens, their elements, transitions, and the routes between screens.

Planning reads the same few thousand rows for every task of an app, so the
planner loads them once per package (four Cypher reads: screens, elements,
transitions, where recorded runs entered the app) and routes in code, with the
one route search and cost of graph/routes.py. What locating a screen and choosing
an app read of each screen (its elements' tokens) is computed once per loaded graph.
"""
from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from appmem.agent.screenwork import is_confirm, label, role
from appmem.graph.model import Element
from appmem.graph.graphrows import GraphRows
from appmem.graph.routes import Edge, Routes, routes_of
from appmem.graph.store import GraphStore, element_of
from appmem.graph.vocabulary import BACK_WORDS, confirm_needed
from appmem.graph.votes import usable
from appmem.semantic.contexts import ScreenRow, TransitionRow

DATA = re.compile(r"\d|@")
LABEL_MAX = 40


def token(e: Element) -> str:
    """What identifies an element across observations: class, id and a label that is not data."""
    first = (e.content_desc or e.text).strip().split("\n", 1)[0].strip().lower()
    static = "" if DATA.search(first) or len(first) > LABEL_MAX or "editable" in e.flags else first
    return f"{e.class_name.rsplit('.', 1)[-1]}|{e.resource_id}|{static}"


def first_line(e: Element) -> str:
    """The first line of what the element shows, lower case: the name of the item a list row shows."""
    return (e.text or "").strip().split("\n", 1)[0].strip().lower()


def twin_key(e: Element) -> tuple[str, str, str]:
    """What makes elements twins, one control shown on several screens: its label, resource id and role."""
    return label(e), e.resource_id, role(e)


@dataclass(frozen=True)
class ScreenKinds:
    """What a plan's screen work reads of a screen's elements (agent/plansteps.py), read once per loaded graph:
    its toggles, its inputs, its confirm buttons (in key order) and its keypad; a form has a confirm button."""

    toggles: list[Element]
    inputs: list[Element]
    confirms: list[Element]
    keys: dict[str, Element] = field(default_factory=dict)  # its keypad (`keypad`): character → key

    @property
    def form(self) -> bool:
        return bool(self.confirms)


def keypad(elements: list[Element]) -> dict[str, Element]:
    """The screen's keypad, character → key: the taps whose label's first line is one character, when a key
    shows each of the ten digits (a dialer's or a PIN pad's keys; a month's day grid lacks a 0); else none."""
    keys: dict[str, Element] = {}
    for e in elements:
        first = (e.text or e.content_desc).strip().split("\n", 1)[0].strip()
        if role(e) == "tap" and len(first) == 1 and not first.isalpha():
            keys.setdefault(first, e)
    return keys if all(d in keys for d in "0123456789") else {}


def likeliest(edges: Iterable[Edge]) -> str | None:
    """The target of the likeliest of `edges` to land where it goes (then the most successes), None when none."""
    best = max(edges, key=lambda e: (e.landing, e.successes), default=None)
    return best.target if best is not None else None


@dataclass
class AppGraph:
    packages: tuple[str, ...]
    screens: dict[str, dict[str, Any]]
    elements: dict[str, Element]
    risky: set[str]
    on_screen: dict[str, list[str]]  # screen id → element ids, in key order
    routes: Routes  # over the edges leaving the app's screens (graph/routes.py)
    entries: list[str] = field(default_factory=list)  # where recorded runs entered the apps, most runs first
    # what look-alike screens of other apps lend (agent/crowd.py): screen id → confirms it lacks;
    # element id → the screen its twin's tap led to (as this app's look-alike of it)
    lent: dict[str, list[Element]] = field(default_factory=dict)
    lent_opens: dict[str, str] = field(default_factory=dict)
    lent_from: dict[str, tuple[str, str]] = field(default_factory=dict)  # lent element id → (package, element id)
    # where the agent stands (`coming`): the screen `came_to`, the edge it took there when its plan request said
    # so, the concrete variant of it its dump shows (graph/variants.py)
    came_to: str = ""
    came_by: str = ""
    variant: str = ""
    # (screen id, element id) of actions seen to leave their screen in place (a choice in a dialog that stays
    # open, a field typed): no route takes them, but they show what a confirm is needed for (agent/compose.py)
    stays: set[tuple[str, str]] = field(default_factory=set)
    # screen id → its ScreenKinds, filled as plans read screens (a copy of the graph shares it: same elements)
    kinds: dict[str, ScreenKinds] = field(default_factory=dict, repr=False)
    # screen id → whether a change there holds only with its confirm (`confirm_needed`), filled as plans ask
    needed: dict[str, bool] = field(default_factory=dict, repr=False)

    @classmethod
    def load(cls, store: GraphStore, packages: list[str]) -> "AppGraph":
        return cls.build(GraphRows.read(store, packages))

    @classmethod
    def build(cls, rows: "GraphRows") -> "AppGraph":
        """The graph of what `rows` read (a reader's view of the store)."""
        packages = list(rows.packages)
        screens = {r["id"]: r for r in rows.screens}
        elements, risky, on_screen = {}, set(), {}
        for row in rows.elements:
            element = elements[row["id"]] = element_of(row)
            on_screen.setdefault(element.screen_id, []).append(element.id)
            if row["risky"]:
                risky.add(element.id)
        # screens of other packages the app's edges lead into (launcher, system dialogs): of the edges the
        # reader may use only (another reader's untrusted edge would lend it a screen it may not read)
        for r in filter(usable, rows.transitions):
            screens.setdefault(r["target"], {"id": r["target"], "package": r["target_package"], "activity": "",
                                             "signature": "", "title": r["target_title"]})
        # and the ways back from them into the app, with the controls they take (a permission dialog's Allow)
        for row in rows.side_elements:
            element = elements.setdefault(row["id"], element_of(row))
            on_screen.setdefault(element.screen_id, []).append(element.id)
        routes = routes_of(rows.transitions + rows.side, rows.follows)
        stays = {(r["source"], r["element_id"]) for r in rows.transitions if r["source"] == r["target"]
                 and r["element_id"] and usable(r)}
        return cls(tuple(packages), screens, elements, risky, on_screen, routes, list(rows.entries), stays=stays)

    def context_rows(self) -> tuple[list[ScreenRow], list[Element], list[TransitionRow]]:
        """The graph as semantic/contexts.py reads a UTG: its screens, elements and edges."""
        screens = [ScreenRow(s["id"], s.get("package") or "", "", s.get("activity") or "", s.get("title") or "")
                   for s in self.screens.values()]
        edges = [TransitionRow(e.source, e.target, e.element_id, e.action) for out in self.edges.values() for e in out]
        return screens, list(self.elements.values()), edges

    def packages_of(self, screen_ids: list[str]) -> dict[str, str]:
        """The package of each of these screens that the graph holds (its apps' and those their edges reach)."""
        return {s: self.screens[s]["package"] for s in screen_ids if s in self.screens and self.screens[s]["package"]}

    @property
    def edges(self) -> dict[str, list[Edge]]:
        """Screen id → the edges leaving it."""
        return self.routes.edges

    def screen_elements(self, screen_id: str) -> list[Element]:
        return [self.elements[i] for i in self.on_screen.get(screen_id, ())]

    def screen_kinds(self, screen_id: str) -> ScreenKinds:
        found = self.kinds.get(screen_id)
        if found is None:
            elements = self.screen_elements(screen_id)
            found = self.kinds[screen_id] = ScreenKinds(
                [e for e in elements if role(e) == "toggle"], [e for e in elements if role(e) == "input"],
                [e for e in elements if role(e) == "tap" and is_confirm(e)], keypad(elements))
        return found

    @cached_property
    def screen_tokens(self) -> dict[str, frozenset[str]]:
        """Screen id → its elements' tokens (screens with elements); a loaded graph does not change."""
        return {sid: frozenset(token(e) for e in self.screen_elements(sid)) for sid in self.on_screen}

    @cached_property
    def by_elements(self) -> dict[tuple[str, ...], str]:
        """The graph's own apps' screens by the elements they show (their sorted tokens): the first
        screen id of each, for screens with any."""
        out: dict[tuple[str, ...], str] = {}
        for sid, row in sorted(self.screens.items()):
            tokens = tuple(sorted(self.screen_tokens.get(sid, ())))
            if row.get("package") in self.packages and tokens:
                out.setdefault(tokens, sid)
        return out

    @cached_property
    def twins(self) -> dict[tuple[str, str, str], list[Element]]:
        """Elements by (label, resource id, role): one control on look-alike screens (compose.twin_opens),
        indexed once per loaded graph instead of a scan of every element per candidate."""
        out: dict[tuple[str, str, str], list[Element]] = {}
        for e in self.elements.values():
            out.setdefault(twin_key(e), []).append(e)
        return out

    @cached_property
    def _by_first_line(self) -> dict[str, list[tuple[int, Element]]]:
        """First line (`first_line`) → the elements showing it, with their places in `elements`."""
        out: dict[str, list[tuple[int, Element]]] = {}
        for at, e in enumerate(self.elements.values()):
            out.setdefault(first_line(e), []).append((at, e))
        return out

    def showing(self, lines: Iterable[str]) -> list[Element]:
        """The elements whose first line is one of `lines`, in the order of `elements`: indexed once per loaded
        graph (a plan that names items looks for their rows among every element of the app)."""
        found = [pair for line in set(lines) for pair in self._by_first_line.get(line, ())]
        return [e for _, e in sorted(found, key=lambda pair: pair[0])]

    def named_taps(self, said: Callable[[str], bool]) -> list[Edge]:
        """The taps of `taps` whose label `said` accepts, in their order: each distinct label asked once."""
        names = self._per_routes("_tap_names", lambda: {name for _, name in self.taps()})
        accepted = {name for name in names if said(name)}
        return [edge for edge, name in self.taps() if name in accepted]

    def taps(self) -> list[tuple[Edge, str]]:
        """The taps that lead to another screen on a control that is no back button, with the control's label:
        read once per set of routes (a copy of the graph that avoids steps has routes of its own)."""
        return self._per_routes("_taps", lambda: [
            (edge, label(e)) for edges in self.edges.values() for edge in edges
            if edge.action == "tap" and edge.target != edge.source and (e := self.elements.get(edge.element_id))
            and label(e).lower() not in BACK_WORDS])

    def _per_routes(self, name: str, build: Callable[[], Any]) -> Any:
        """`build()`, kept under `name` until the graph's routes change (a copy of the graph that avoids steps
        has routes of its own)."""
        kept = self.__dict__.get(name)
        if kept is None or kept[0] is not self.routes:
            kept = self.__dict__[name] = (self.routes, build())
        return kept[1]

    def confirm_needed(self, screen_id: str) -> bool:
        """graph/vocabulary.confirm_needed for the screen's elements but its fields (a plan knows what it typed) and
        the choices seen to leave it open: read once per loaded graph (a copy shares it: same elements, same stays)."""
        found = self.needed.get(screen_id)
        if found is None:
            untouched = [e for e in self.screen_elements(screen_id) if role(e) != "input"]
            found = self.needed[screen_id] = confirm_needed(
                untouched, {e.id for e in untouched if (screen_id, e.id) in self.stays})
        return found

    def shown_choices(self, screen_id: str) -> list[str]:
        """The choices the screen shows made: the labels of its controls (a spinner, a setting's row) that open
        a list whose choice of that label is checked. Read once per screen and set of routes, as `taps`."""
        known: dict[str, list[str]] = self._per_routes("_shown_choices", dict)
        if screen_id not in known:
            known[screen_id] = [label(e) for e in self.screen_elements(screen_id)
                                if role(e) == "tap" and label(e) and (opened := self.opens(e))
                                and any(label(t).lower() == label(e).lower() and "checked" in t.flags
                                        for t in self.screen_kinds(opened).toggles)]
        return known[screen_id]

    def alike(self, edge: Edge) -> list[Edge]:
        """The edges that leave `edge`'s screen for its next screen by its action (itself among them when the graph
        holds it), in the order of `edges`: indexed once per set of routes, as `taps`."""
        def index() -> dict[tuple[str, str, str], list[Edge]]:
            out: dict[tuple[str, str, str], list[Edge]] = {}
            for source, edges in self.edges.items():
                for e in edges:
                    out.setdefault((source, e.target, e.action), []).append(e)
            return out
        return self._per_routes("_alike", index).get((edge.source, edge.target, edge.action), [])

    def opens(self, element: Element) -> str | None:
        """The screen acting on `element` most reliably led to (another screen than its own)."""
        return likeliest(self.routes.acting(element.screen_id, element.id))

    def sibling_opens(self, row: Element, skip: Callable[[Element], bool] = lambda e: False) -> str | None:
        """Where the rows next to `row` (same container, same class, no description; none that `skip`
        says is no row) lead: a list's rows open alike (an item's detail screen; a choice list back to
        its screen)."""
        parent = row.key.rsplit("/", 1)[0]
        for e in self.screen_elements(row.screen_id):
            if e.id != row.id and e.class_name == row.class_name and e.key.rsplit("/", 1)[0] == parent \
                    and not e.content_desc and not skip(e) and (opened := self.opens(e)):
                return opened
        return None

    def changes_state(self, element_id: str) -> bool:
        """Acting on the element changes the app's state: a toggle or choice (checkbox, switch, radio row), or a
        risky tap."""
        e = self.elements.get(element_id)
        return e is not None and (element_id in self.risky or role(e) == "toggle")

    @cached_property
    def quiet(self) -> "AppGraph":
        """This graph without the edges that change state (`changes_state`): the routes a plan prefers, that
        reach their target without ticking a setting or taking a risky tap on the way (agent/candidate_routes.py)."""
        avoid = [{"screen_id": e.source, "action": e.action, "element_id": e.element_id, "detail": e.detail}
                 for edges in self.edges.values() for e in edges if self.changes_state(e.element_id)]
        return self.coming(None, None, avoid=avoid) if avoid else self

    def search_routes(self) -> None:
        """The cheapest routes from every screen searched now, in this graph and its `quiet` one (as a plan would
        search them, on the first plan that starts or passes there): what a server preloads, so that new plans
        search none."""
        for graph in (self, self.quiet):
            for screen in sorted(set(graph.screens) | set(graph.edges)):
                graph.routes.reached(screen)

    def back_of(self, screen_id: str) -> str | None:
        """Where going back from `screen_id` most reliably led (another screen)."""
        return likeliest(e for e in self.edges.get(screen_id, ()) if e.action == "back" and e.target != screen_id)

    def coming(self, came_from: Mapping[str, str] | None, start: str | None, variant: str = "",
               avoid: Iterable[Mapping[str, str]] | None = None) -> "AppGraph":
        """This graph for a plan whose agent stands in `start`, showing its concrete `variant` (when its dump
        said), having come by the action `came_from` ({screen_id, action, element_id, detail}: its previous
        step): routes from `start` then weigh what actions did from that variant (graph/variants.py) and where
        they landed after that edge (graph/follows.py). `avoid`: actions ({screen_id, action, element_id,
        detail}) that failed from their screens in the agent's run: no route takes them. A copy sharing what is
        loaded; self when memory knows none of these."""
        avoided = {(a.get("screen_id", ""), a.get("action", ""), a.get("element_id") or "", a.get("detail") or "")
                   for a in avoid or ()}
        if avoided and any(e.group in avoided for edges in self.edges.values() for e in edges):
            graph = self._copy()  # routes searched afresh without them (the hop costs kept)
            graph.routes = self.routes.without(frozenset(avoided))
            return graph.coming(came_from, start, variant)
        if not start:
            return self
        by = next((e.key for e in self.edges.get(came_from.get("screen_id", ""), ())
                   if e.target == start and e.action == came_from.get("action")
                   and e.element_id == (came_from.get("element_id") or "")
                   and e.detail == (came_from.get("detail") or "")), "") if came_from else ""
        variant = variant if self.routes.variants.knows(variant) else ""
        if not by and not variant:
            return self
        graph = self._copy()
        graph.came_to, graph.came_by, graph.variant = start, by, variant
        return graph

    def _copy(self) -> "AppGraph":
        """A copy sharing what is loaded, for other routes: what was derived from this graph's routes (`quiet`)
        is derived afresh from the copy's, so a plan's quiet routes leave out what it avoids and weigh where its
        agent stands too."""
        graph = copy.copy(self)
        graph.__dict__.pop("quiet", None)
        return graph

    def route(self, start: str, target: str) -> list[Edge] | None:
        """The cheapest route from `start` to `target` ([] when they are the same screen), None if none; from
        where the agent stands (`coming`) when its plan request said."""
        if start != self.came_to:
            return self.routes.route(start, target)
        return self.routes.route(start, target, self.came_by, self.variant)


def route_hops(store: GraphStore, source_id: str, target_id: str) -> list[dict[str, Any]] | None:
    """The planner's route between two screens as hops ({action, element_id, detail, target, successes,
    failures, stale}), for the app map; None when there is none or the source is unknown."""
    rows = store.read("planner_screen_package", screen_id=source_id)
    if not rows:
        return None
    hops = AppGraph.load(store, [rows[0]["package"]]).route(source_id, target_id)
    if hops is None:
        return None
    return [h.hop() for h in hops]
