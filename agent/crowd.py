"""What look-alike screens of other apps lend the planned app: controls and effects its exploration missed.

Apps built on one library, or calling one system screen, share screens (a "Customize colors" page, the
print dialog): the same title and essentially the same controls. One app's exploration may have seen
such a screen after a change, with the Save it shows then, or tapped a control there that another's
never tapped. A screen of the planned app and a screen of another app are look-alikes when their titles
agree and at least LOOK_ALIKE of the smaller screen's controls (class, resource-id name, a label that is
not data: agent/appgraph.token without the package) are on both. Of other apps' screens with a title, about as
many as the planned app has of that title are read (whole apps, the app whose screen of it showed the most
controls first: cypher/planner_crowd_screens): a title that many apps share ("Settings") costs a first plan
what the app's own screens cost, whatever the memory's size. A look-alike lends
- the confirm buttons the screen lacks, with locators rewritten for the planned app (its package in
  resource ids);
- the effect of a twin control (same token) that the planned app never saw act: where it led, when the
  planned app holds a look-alike of that screen.
One Cypher read of the look-alikes and their taps, one of their elements, per loaded app. What they lend
reaches the planned app's element index too (`lend`): the lent confirms join it (their own rows, re-keyed
to the screen they are lent to) and a lent effect is the element's `leads_to`, so that the one element
scorer ranks the confirms of a screen a twin's effect reaches as it ranks those of one seen reached.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import replace

from appmem.agent.appgraph import AppGraph, token
from appmem.agent.screenwork import is_confirm, role
from appmem.graph.model import Element
from appmem.graph.store import GraphStore, element_of
from appmem.semantic.layers import Row
from appmem.semantic.vectors import VectorStore

LOOK_ALIKE = 0.5  # as agent/locate.py's similar screens (not tuned on the benchmark)


def shape(e: Element) -> str:
    """An element's token (agent/appgraph.token) with its app's package left out of the resource id."""
    kind, rid, static = token(e).split("|", 2)
    return f"{kind}|{rid.split(':id/', 1)[-1]}|{static}"


def look_alike(a: set[str], b: set[str]) -> bool:
    """Whether two screens with these control shapes are look-alikes."""
    return bool(a and b) and len(a & b) / min(len(a), len(b)) >= LOOK_ALIKE


def wanted_titles(titles: list[str]) -> list[dict]:
    """The planned app's screens' titles, each with how many screens of other apps of that title to read."""
    return [{"title": title, "limit": n} for title, n in sorted(Counter(t for t in titles if t).items())]


def moved(e: Element, screen_id: str, package: str) -> Element:
    """`e` (another app's control) as a control of `screen_id` in `package`: its resource id and
    locators name the planned app's package; a locator by position in the other app's view tree is dropped."""
    theirs = e.resource_id.split(":id/", 1)[0] if ":id/" in e.resource_id else ""
    swap = (lambda s: s.replace(f"{theirs}:id/", f"{package}:id/")) if theirs else (lambda s: s)
    return replace(e, id=f"{screen_id}~{e.id}", screen_id=screen_id, resource_id=swap(e.resource_id),
                   locators=[swap(x) for x in e.locators if x.startswith("//")])


def lookalike_rows(store: GraphStore, titles: list[dict], packages: list[str]) -> list[dict]:
    """Other apps' screens of `titles` with their taps (planner_crowd_screens, by the public's titles), and for a
    tenant's view, in the same read, those its own keys titled so (planner_crowd_layer_screens), which the title
    index does not hold (planner_crowd_view_screens)."""
    name = "planner_crowd_view_screens" if store.viewer.tenant else "planner_crowd_screens"
    return store.read(name, titles=titles, packages=packages)


def borrow_from_lookalikes(store: GraphStore, graph: AppGraph) -> AppGraph:
    """`graph` with what look-alikes lend filled in: `lent` (screen id → confirms it lacks) and
    `lent_opens` (element id → the screen of this app its twin's effect maps to)."""
    own = {sid: graph.screen_elements(sid) for sid in graph.on_screen
           if graph.screens.get(sid, {}).get("package") in graph.packages}
    titles = wanted_titles([graph.screens[sid].get("title") or "" for sid in own])
    rows = lookalike_rows(store, titles, list(graph.packages)) if titles else []
    if not rows:
        return graph
    ids = {r["id"] for r in rows} | {r["target"] for r in rows if r["target"]}
    theirs: dict[str, list[Element]] = {}
    for row in store.elements(screen_ids=sorted(ids)):
        theirs.setdefault(row["screen_id"], []).append(element_of(row))
    package_of = {r["id"]: r["package"] for r in rows}
    by_title: dict[str, list[str]] = {}
    led: dict[str, list[tuple[str, str]]] = {}  # their screen → (element id, target screen) of its taps
    for r in rows:
        if r["id"] not in by_title.get(r["title"], []):
            by_title.setdefault(r["title"], []).append(r["id"])
        if r["target"]:
            led.setdefault(r["id"], []).append((r["element_id"], r["target"]))
    mine_by_title: dict[str, list[str]] = {}
    for sid in own:
        mine_by_title.setdefault(graph.screens[sid].get("title", ""), []).append(sid)
    target_titles = {r["target"]: r["target_title"] for r in rows if r["target"]}
    shapes = {e.id: shape(e) for els in (*own.values(), *theirs.values()) for e in els}  # each element's once
    own_shapes = {sid: {shapes[e.id] for e in els} for sid, els in own.items()}
    their_shapes = {sid: {shapes[e.id] for e in els} for sid, els in theirs.items()}

    def mine_like(their_screen: str) -> str | None:
        """The planned app's look-alike of another app's screen."""
        return next((sid for sid in mine_by_title.get(target_titles.get(their_screen, ""), ())
                     if look_alike(own_shapes[sid], their_shapes.get(their_screen, set()))), None)

    acted = {e.element_id for edges in graph.edges.values() for e in edges}
    for sid, els in own.items():
        shown = set(own_shapes[sid])
        for other in by_title.get(graph.screens[sid].get("title", ""), ()):
            if not look_alike(own_shapes[sid], their_shapes.get(other, set())):
                continue
            for e in theirs[other]:
                if is_confirm(e) and role(e) == "tap" and shapes[e.id] not in shown:
                    shown.add(shapes[e.id])
                    mine = moved(e, sid, graph.screens[sid]["package"])
                    graph.lent.setdefault(sid, []).append(mine)
                    graph.lent_from[mine.id] = (package_of[other], e.id)
            twins = {shapes[e.id]: e.id for e in theirs[other]}
            effects = {element: target for element, target in led.get(other, ())}
            for e in els:
                their = twins.get(shapes[e.id])
                if e.id not in acted and e.id not in graph.lent_opens and their in effects \
                        and (mine := mine_like(effects[their])) is not None and mine != sid:
                    graph.lent_opens[e.id] = mine
    return graph


def lend(graph: AppGraph, vectors: VectorStore, rows: list[Row]) -> list[Row]:
    """`rows` (the element index's rows of `graph`'s apps) with what look-alikes lend them: an element never
    seen to act leads where its twin on another app's look-alike led (`lent_opens`, payload `leads_to`), and
    the confirms lent to the apps' screens join them (`lent_rows`)."""
    opens = graph.lent_opens
    return [(vector, {**payload, "leads_to": [opens[payload["element_id"]]]})
            if payload.get("element_id") in opens and not payload.get("leads_to") else (vector, payload)
            for vector, payload in rows] + lent_rows(graph, vectors)


def lent_rows(graph: AppGraph, vectors: VectorStore) -> list[Row]:
    """The element index's rows of the confirms look-alikes lend `graph`'s screens (`borrow_from_lookalikes`):
    each the rows of the control it copies (its vectors and texts, read from its own app's points), re-keyed
    to the screen it is lent to. They say nothing of where the control leads in the planned app."""
    lent = {e.id: e for elements in graph.lent.values() for e in elements}
    wanted: dict[str, list[str]] = {}  # their element id → the lent copies of it
    for lent_id, (_, theirs) in graph.lent_from.items():
        if lent_id in lent:
            wanted.setdefault(theirs, []).append(lent_id)
    packages = sorted({package for lent_id, (package, _) in graph.lent_from.items() if lent_id in lent})
    out: list[Row] = []
    for vector, payload in vectors.points("elements", packages) if packages else ():
        for lent_id in wanted.get(str(payload.get("element_id")), ()):
            screen = graph.screens[lent[lent_id].screen_id]
            out.append((vector, {**payload, "package": screen["package"], "screen_id": lent[lent_id].screen_id,
                                 "screen_title": screen.get("title", ""), "element_id": lent_id,
                                 "object_id": lent_id, "leads_to": [], "lent_from": payload.get("package")}))
    return out
