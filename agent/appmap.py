"""An app's map as data: its screens (each with a thumbnail drawn as SVG from its elements' stored bounds) and
its transitions (labelled by action and element, with reliability and staleness). The analysts' page
(analyst/map.py) draws it; MCP serves it as the resource `appmem://apps/{package}/map`."""
from __future__ import annotations

import html
import urllib.parse
from typing import Any

from appmem.errors import NotFound
from appmem.graph.model import reliability
from appmem.graph.store import GraphStore
from appmem.graph.votes import shown_counts

SCREEN = (1080, 1920)  # drawing size when a screen's elements do not say


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


def _edge(row: dict[str, Any]) -> dict[str, Any]:
    """A transition of the map, its counts as every reader may see them (graph/votes.py shown_counts)."""
    counts = shown_counts(row["counts"])
    return {**{k: v for k, v in row.items() if k != "counts"}, **counts,
            "label": f"{row['action']} {row['element'] or row['detail'] or ''}".strip(),
            "reliability": reliability(counts["successes"], counts["failures"])}


def app_map(store: GraphStore, package: str) -> dict[str, Any]:
    """The map of the app `package` (a full package name); NotFound when memory holds none of its screens."""
    screens = store.read("map_screens", package=package)
    if not screens:
        raise NotFound(f"no app {package!r} in the memory")
    nodes = [{"id": s["id"], "version": s["version"], "activity": s["activity"], "title": s["title"] or s["activity"],
              "elements": len([e for e in s["elements"] if e.get("bounds")]), "summarised": s["summarised"],
              "thumbnail": thumbnail(s["elements"])} for s in screens]
    edges = [_edge(t) for t in store.read("map_transitions", package=package)]
    return {"package": package, "screens": nodes, "transitions": edges}
