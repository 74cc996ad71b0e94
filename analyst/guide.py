"""The Neo4j Browser guide for analysts, rendered from the saved queries in cypher/analyst_*.cypher.

`render_guide()` gives the `:play`-able HTML: a slide per saved query with what it
shows (its comment lines), the `:param` lines it needs and the query itself, runnable.
The API serves it at /guides/appmem.html; docker/browser/appmem.html is the same text
(a test keeps them equal) for hosting it elsewhere. Style: docker/browser/appmem.grass.
"""
from __future__ import annotations

import html
from pathlib import Path

from appmem import cypher

REPO = Path(__file__).resolve().parents[1]
STATIC_GUIDE = REPO / "docker" / "browser" / "appmem.html"
GRASS = REPO / "docker" / "browser" / "appmem.grass"

# (saved query, slide title, its parameters); parameters carry examples from the shared data.
SLIDES = (
    ("analyst_apps_overview", "Apps overview", ()),
    ("analyst_app_screens", "An app's screens", ("package",)),
    ("analyst_app_graph", "An app's UTG, drawn", ("package",)),
    ("analyst_neighbourhood", "A screen's neighbourhood", ("screen_id",)),
    ("analyst_neighbourhood_graph", "A screen's neighbourhood, drawn", ("screen_id",)),
    ("analyst_path", "Shortest path between two screens", ("source_id", "target_id")),
    ("analyst_path_graph", "Shortest path, drawn", ("source_id", "target_id")),
    ("analyst_frontier", "Unexplored frontier", ("package",)),
    ("analyst_cross_app", "Cross-app links", ("package",)),
    ("analyst_stale_edges", "Stale edges of old versions", ("package",)),
    ("analyst_shortcuts", "Most-used shortcuts", ("package",)),
    ("analyst_version_diff", "Screens that differ between versions", ("package", "old", "new")),
)
PARAM_EXAMPLES = {
    "package": "'de.szalkowski.activitylauncher'",
    "screen_id": "'<a screen id from the slides above>'",
    "source_id": "'<a screen id>'",
    "target_id": "'<another screen id>'",
    "old": "'<older version>'",
    "new": "'<newer version>'",
}


def split_query(name: str) -> tuple[str, str]:
    """A saved query's leading comment (what it shows) and its Cypher."""
    lines = cypher.load(name).strip().splitlines()
    comment = [ln.lstrip("/ ").strip() for ln in lines if ln.startswith("//")]
    body = "\n".join(ln for ln in lines if not ln.startswith("//"))
    text = " ".join(comment)
    return text.split(":", 1)[1].strip() if text.startswith(name + ":") else text, body


def _slide(title: str, inner: str) -> str:
    return f'<slide class="row-fluid">\n<div class="col-sm-12">\n<h3>{html.escape(title)}</h3>\n{inner}\n</div>\n</slide>'


def _runnable(code: str) -> str:
    return f'<pre mode="cypher" class="pre-scrollable code runnable">{html.escape(code, quote=False)}</pre>'


def render_guide() -> str:
    slides = [_slide("appmem: the memory of mobile apps", "\n".join((
        "<p>Screens (<code>:Screen</code>) are the content-free structures of an app version's UI states; their "
        "interactive views are <code>:Element</code>s; <code>[:TRANSITION]</code> edges say which action on which "
        "element leads from a screen to another (with observations, successes, failures, devices, versions and "
        "<code>stale</code>). Screens of other packages (launcher, system dialogs) link apps together.</p>",
        "<p>Load the style first: drag <code>docker/browser/appmem.grass</code> onto this Browser "
        "(or <code>:style</code> and paste it). Then set the app to look at:</p>",
        _runnable(f":param package => {PARAM_EXAMPLES['package']}"),
        "<p>Each slide runs one saved query of <code>cypher/analyst_*.cypher</code> (the same text the tests run "
        "on the embedded ArcadeDB). Screen ids come from the first slides.</p>")))]
    for name, title, params in SLIDES:
        what, body = split_query(name)
        inner = [f"<p>{html.escape(what)}</p>"]
        inner += [_runnable(f":param {p} => {PARAM_EXAMPLES[p]}") for p in params if p != "package"]
        inner.append(_runnable(body))
        inner.append(f"<p><small>Saved as <code>cypher/{name}.cypher</code>.</small></p>")
        slides.append(_slide(title, "\n".join(inner)))
    deck = "\n".join(slides)
    return (f'<article class="guide">\n<carousel class="deck container-fluid">\n{deck}\n</carousel>\n</article>\n')
