"""Finding things by name and by meaning: an app by its short name, elements, screens or tasks by a text.

`resolve_app`: `calendar` designates com.simplemobiletools.calendar.pro (the
package's last name part, or the one before a `.pro` / `.free` style suffix); a plan or a search
may span every app a short name designates, `one_app` is for what reads one app (a document, a map).
`search`: scored hits from the element, screen or task memory, each checked against the graph (only the
nodes it holds and the trust predicate admits: a vector's payload is never trusted on its own).
`element_index`: the one way to the element index of some apps (search, hints, app choice).
"""
from __future__ import annotations

from typing import Any

from appmem.errors import InvalidInput, NotFound
from appmem.semantic.layers import merged, nearest

SUFFIXES = {"pro", "free", "lite", "debug", "beta", "app", "android", "mobile"}


def resolve_app(packages: list[str], name: str) -> list[str]:
    """Packages `name` designates: itself if it is one, else those whose last
    name part (before a `.pro`-style suffix) is `name`."""
    if name in packages:
        return [name]
    wanted = name.strip().lower()
    out = []
    for package in packages:
        parts = package.lower().split(".")
        if parts[-1] == wanted or (len(parts) > 1 and parts[-1] in SUFFIXES and parts[-2] == wanted):
            out.append(package)
    if not out:
        raise NotFound(f"no app in the graph matches {name!r}; known: {', '.join(packages) or 'none'}")
    return out


def one_app(packages: list[str], name: str) -> str:
    """The one package `name` designates; a short name that designates several is refused, naming them."""
    found = resolve_app(packages, name)
    if len(found) > 1:
        raise InvalidInput("app", f"{name!r} names {len(found)} apps ({', '.join(found)}): name one by its package")
    return found[0]


def element_index(vectors, embedder, packages: list[str] | None, kept=None):
    """The element index of `packages` (every app when None): `kept`, the caller's (a server's, the
    planner's), else read from the vectors with the installed ranker (semantic/ranker.py)."""
    from appmem.semantic.ranker import installed
    from appmem.semantic.ranking import ElementIndex

    if kept is not None:  # not `kept or`: an index has a length, and an empty one is still the caller's
        return kept
    return ElementIndex.load(vectors, packages, installed(getattr(embedder, "home", None)))


# Hits asked of the vectors per hit wanted: the graph check may drop some (a purged or untrusted node's point).
OVERFETCH = 3


def search(vectors, embedder, store, text: str, kind: str = "element", packages: list[str] | None = None,
           k: int = 5, index=None, own: list | None = None) -> list[dict[str, Any]]:
    """Scored hits for `text`: screen and element ids, labels, simulated task / summary / task text; only
    hits whose node `store` (the graph) holds and trusts (`GraphStore.trusted_ids`).
    `index`: the element index of `packages` when the caller keeps one (a server), else it is read here;
    `own`: a tenant view's own screen or task points (semantic/layers.py), searched beside the collection."""
    collection = {"element": "elements", "screen": "screens", "task": "tasks"}[kind]
    vector = embedder.query(text)
    if kind == "element":
        hits = element_index(vectors, embedder, packages, index).search(vector, text, k * OVERFETCH)
    else:
        hits = vectors.search(collection, vector, k=k * OVERFETCH, packages=packages)
        hits = merged(hits, nearest(own or [], collection, vector, k * OVERFETCH), k * OVERFETCH)
    trusted = _trusted(store, hits, kind)
    hits = [h for h in hits if _node(h.payload, kind) in trusted][:k]
    out = []
    for h in hits:
        p = h.payload
        hit = {"score": round(h.score, 4), "package": p.get("package"), "app_version": p.get("app_version"),
               "screen_id": p.get("screen_id"), "element_id": p.get("element_id") or None, "risky": p.get("risky")}
        if kind == "element":
            hit.update(label=p.get("label"), simulated_task=p.get("simulated_task"), matched=p.get("text"),
                       screen_title=p.get("screen_title"))
        elif kind == "screen":
            hit.update(title=p.get("screen_title"), summary=p.get("text"))
        else:
            hit.update(task_id=p.get("task_id"), description=p.get("text"), element_ids=p.get("element_ids"))
        out.append(hit)
    return out


def _node(payload: dict[str, Any], kind: str) -> str | None:
    return payload.get({"element": "element_id", "screen": "screen_id", "task": "task_id"}[kind])


def _trusted(store, hits: list, kind: str) -> set[str]:
    ids = [i for i in (_node(h.payload, kind) for h in hits) if i]
    return store.trusted_ids(**{f"{kind}_ids": ids}) if ids else set()
