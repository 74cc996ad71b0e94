"""What look-alike screens of other apps lend the planned app: the confirm its exploration never saw.

Apps built on one library share screens (a "Customize colors" page, a sort dialog): the same title
and essentially the same controls. One app's exploration may have seen such a screen after a change,
with the Save it shows then, and another's only before. A screen of the planned app and a screen of
another app are look-alikes when their titles agree and at least LOOK_ALIKE of the smaller screen's
controls (class, resource-id name, a label that is not data: agent/appgraph.token without the package)
are on both. The look-alike lends the confirm buttons the screen lacks, each with locators rewritten
for the planned app (its package in resource ids): a crowd memory fills one app's gap from another's.
Only screens with a confirm are read (one Cypher read per loaded app, cypher/planner_crowd_screens).
"""
from __future__ import annotations

from dataclasses import replace

from agent.appgraph import AppGraph, token
from agent.screenwork import is_confirm, role
from graph.model import Element
from graph.store import GraphStore, element_of
from graph.vocabulary import CONFIRM_WORDS

LOOK_ALIKE = 0.5  # as agent/locate.py's similar screens (not tuned on the benchmark)


def shape(e: Element) -> str:
    """An element's token (agent/appgraph.token) with its app's package left out of the resource id."""
    kind, rid, static = token(e).split("|", 2)
    return f"{kind}|{rid.split(':id/', 1)[-1]}|{static}"


def look_alike(mine: list[Element], theirs: list[Element]) -> bool:
    a, b = {shape(e) for e in mine}, {shape(e) for e in theirs}
    return bool(a and b) and len(a & b) / min(len(a), len(b)) >= LOOK_ALIKE


def moved(e: Element, screen_id: str, package: str) -> Element:
    """`e` (another app's control) as a control of `screen_id` in `package`: its resource id and
    locators name the planned app's package."""
    theirs = e.resource_id.split(":id/", 1)[0] if ":id/" in e.resource_id else ""
    swap = (lambda s: s.replace(f"{theirs}:id/", f"{package}:id/")) if theirs else (lambda s: s)
    return replace(e, id=f"{screen_id}~{e.id}", screen_id=screen_id, resource_id=swap(e.resource_id),
                   locators=[swap(x) for x in e.locators])


def lend(store: GraphStore, graph: AppGraph) -> AppGraph:
    """`graph` with `lent` filled: screen id → the confirm buttons its look-alikes in other apps show
    and it does not."""
    graph.lent = lent_confirms(store, graph, list(graph.packages))
    return graph


def lent_confirms(store: GraphStore, graph: AppGraph, packages: list[str]) -> dict[str, list[Element]]:
    screens = graph.screens
    own = {sid: graph.screen_elements(sid) for sid in graph.on_screen if screens.get(sid, {}).get("package") in packages}
    titles = sorted({screens[sid]["title"] for sid, els in own.items()
                     if screens[sid].get("title") and not any(is_confirm(e) for e in els)})
    if not titles:
        return {}
    rows = store.read("planner_crowd_screens", titles=titles, packages=packages, confirms=sorted(CONFIRM_WORDS))
    theirs: dict[str, list[Element]] = {}
    for row in store.elements(screen_ids=[r["id"] for r in rows]) if rows else ():
        theirs.setdefault(row["screen_id"], []).append(element_of(row))
    by_title: dict[str, list[str]] = {}
    for r in rows:
        by_title.setdefault(r["title"], []).append(r["id"])
    out: dict[str, list[Element]] = {}
    for sid, els in own.items():
        shown = {shape(e) for e in els}
        for other in by_title.get(screens[sid].get("title", ""), ()):
            if not look_alike(els, theirs.get(other, [])):
                continue
            for e in theirs[other]:
                if is_confirm(e) and role(e) == "tap" and shape(e) not in shown:
                    shown.add(shape(e))
                    out.setdefault(sid, []).append(moved(e, sid, screens[sid]["package"]))
    return out
