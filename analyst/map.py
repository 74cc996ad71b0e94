"""The app map: a read-only page per app at /apps/{package}/map, drawn with Cytoscape.js.

`map_router(store_factory)` gives the routes `appmem serve` mounts:
- `/apps/{package}/map`: the page (analyst/static/map.html + map.js);
- `/apps/{package}/map.json`: screens (thumbnails drawn as SVG from their elements' stored
  bounds) and transitions (labelled by action and element, with reliability and staleness);
- `/apps/{package}/screens/{screen_id}.json`: a screen's summary, sub-tasks and elements;
- `/apps/{package}/route?source=&target=`: the planner's route between two screens
  (`planner_route`, the one place that asks the planner);
- `/static/map/{file}` (Cytoscape.js from tools/js, installed by scripts/setup) and
  `/guides/appmem.html` (the Neo4j Browser guide, with CORS so Browser can `:play` it).
`store_factory()` returns the GraphStore to read (the service's shared one).
"""
from __future__ import annotations

import html
import urllib.parse
from pathlib import Path
from typing import Any, Callable

from fastapi import APIRouter, Depends, HTTPException
from fastapi.responses import FileResponse, HTMLResponse

from appmem.errors import NotFound
from appmem.graph.model import reliability
from appmem.graph.store import GraphStore
from appmem.semantic.search import one_app

STATIC = Path(__file__).resolve().parent / "static"
CYTOSCAPE = Path(__file__).resolve().parents[1] / "tools" / "js" / "node_modules" / "cytoscape" / "dist"
SCREEN = (1080, 1920)  # drawing size when a screen's elements do not say


def planner_route(store: GraphStore, source_id: str, target_id: str) -> list[dict[str, Any]] | None:
    """The planner's route between two screens (agent/appgraph.py: the cheapest by length and reliability)."""
    from appmem.agent.appgraph import route_hops

    return route_hops(store, source_id, target_id)


def thumbnail(elements: list[dict[str, Any]]) -> str:
    """An SVG data URI sketching a screen: a box per element at its bounds, buttons and fields
    told apart by colour, labels as text (escaped: UI text is untrusted)."""
    boxes = [e for e in elements if e.get("bounds") and len(e["bounds"]) == 4]
    width = max([SCREEN[0]] + [e["bounds"][2] for e in boxes])
    height = max([SCREEN[1]] + [e["bounds"][3] for e in boxes])
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}">',
             f'<rect width="{width}" height="{height}" fill="#fafafa" stroke="#555" stroke-width="8"/>']
    for e in boxes:
        left, top, right, bottom = e["bounds"]
        cls = (e.get("class_name") or "").rsplit(".", 1)[-1]
        fill = "#ffe0b2" if "Edit" in cls else "#bbdefb" if "Button" in cls else "#e0e0e0"
        parts.append(f'<rect x="{left}" y="{top}" width="{max(right - left, 1)}" height="{max(bottom - top, 1)}" '
                     f'fill="{fill}" stroke="#607d8b" stroke-width="3"/>')
        if e.get("label"):
            size = max(18, min(48, (bottom - top) // 2))
            parts.append(f'<text x="{left + 8}" y="{top + size + 4}" font-size="{size}" font-family="sans-serif">'
                         f'{html.escape(str(e["label"])[:30])}</text>')
    parts.append("</svg>")
    return "data:image/svg+xml;charset=utf-8," + urllib.parse.quote("".join(parts))


def the_app(store: GraphStore, name: str) -> str:
    """The package a map route names: itself, or the one app its short name designates (as every route of the
    API takes it; a short name that designates several is refused, naming them)."""
    try:
        return one_app([r["package"] for r in store.read("semantic_packages")], name)
    except NotFound:  # no app matches: app_map answers the 404, naming it
        return name


def app_map(store: GraphStore, package: str) -> dict[str, Any]:
    screens = store.read("map_screens", package=package)
    if not screens:
        raise HTTPException(404, f"no app {package!r} in the memory")
    nodes = [{"id": s["id"], "version": s["version"], "activity": s["activity"], "title": s["title"] or s["activity"],
              "elements": len([e for e in s["elements"] if e.get("bounds")]), "summarised": s["summarised"],
              "thumbnail": thumbnail(s["elements"])} for s in screens]
    edges = [{**t, "label": f"{t['action']} {t['element'] or t['detail'] or ''}".strip(),
              "reliability": reliability(t["successes"] or 0, t["failures"] or 0)}
             for t in store.read("map_transitions", package=package)]
    return {"package": package, "screens": nodes, "transitions": edges}


def map_router(store_factory: Callable[[Any], GraphStore], guard: Callable) -> APIRouter:
    """The map's routes; `guard` (a FastAPI dependency: the API's `plan` scope) protects its data routes, and
    `store_factory(key)` is the store as the key `guard` admitted reads it (its tenant's view).
    The page and its scripts hold no data: the page sends the key it is given (map.js)."""
    router = APIRouter(tags=["app map"])

    @router.get("/apps/{package}/map", response_class=HTMLResponse)
    def page(package: str) -> HTMLResponse:
        text = (STATIC / "map.html").read_text(encoding="utf-8")
        return HTMLResponse(text.replace("{{package}}", html.escape(package)))

    @router.get("/apps/{package}/map.json", )
    def map_json(package: str, reader: Any = Depends(guard)) -> dict[str, Any]:
        store = store_factory(reader)
        return app_map(store, the_app(store, package))

    @router.get("/apps/{package}/screens/{screen_id}.json", )
    def screen(package: str, screen_id: str, reader: Any = Depends(guard)) -> dict[str, Any]:
        store = store_factory(reader)
        rows = store.read("map_screen", package=the_app(store, package), screen_id=screen_id)
        if not rows:
            raise HTTPException(404, f"no screen {screen_id!r} in app {package!r}")
        return rows[0]

    @router.get("/apps/{package}/route", )
    def route(package: str, source: str, target: str, reader: Any = Depends(guard)) -> dict[str, Any]:
        store = store_factory(reader)
        package = the_app(store, package)
        if not store.read("map_screen", package=package, screen_id=source):  # the route leaves this app's screen
            raise HTTPException(404, f"no screen {source!r} in app {package!r}")
        hops = planner_route(store, source, target)
        return {"package": package, "source": source, "target": target, "found": hops is not None,
                "hops": hops or []}

    @router.get("/static/map/{name}")
    def static(name: str) -> FileResponse:
        files = {"map.js": STATIC / "map.js", "cytoscape.min.js": CYTOSCAPE / "cytoscape.min.js"}
        if name not in files:
            raise HTTPException(404, f"no file {name!r}")
        if not files[name].is_file():
            raise HTTPException(503, f"{name} is not installed: run scripts/setup")
        return FileResponse(files[name], media_type="text/javascript")

    @router.get("/guides/appmem.html", response_class=HTMLResponse)
    def guide() -> HTMLResponse:
        from appmem.analyst.guide import render_guide

        return HTMLResponse(render_guide(), headers={"Access-Control-Allow-Origin": "*"})

    return router
