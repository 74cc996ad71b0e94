"""The app document (AutoDroid-V2): an app's screens and abstract elements, for an LLM to write scripts from.

For the app's current version: each screen (name, summary, the cheapest way in
from the app's entry as element labels) and its elements (name, description =
the simulated task, effect = the screen it opens and what becomes available
there, the XPath locator queue, most precise first).

The document must fit a prompt, so it is trimmed by usefulness, never by
cutting text: screens nearest the entry first (screens no route reaches last),
on each screen the elements that open something first, elements with neither
a label nor an effect left out; whole elements and screens are dropped once
the token budget is spent, and the document says how many. Tokens are counted
with the embedding model's own WordPiece tokenizer (all-MiniLM-L6-v2's
tokenizer.json through the `tokenizers` package): a stand-in for an LLM's
tokenizer, within about 10-20 % of GPT-style BPE counts on English UI text.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from appmem.errors import NotFound
from appmem.graph.routes import Routes, load_routes
from appmem.graph.store import GraphStore
from appmem.graph.votes import shown_counts

BUDGET = 4000  # tokens: a document an LLM reads next to its task and screen
AVAILABLE = 4  # labels of an opened screen named in an element's effect
LOCATORS = 3


class DocError(NotFound):
    """No document: no crawl, import or run of the app is in memory (a 404, as any app memory lacks)."""


def token_counter(home: Path):
    from tokenizers import Tokenizer

    from appmem.semantic.embedder import model_folder

    tokenizer = Tokenizer.from_file(str(model_folder(home) / "tokenizer.json"))
    tokenizer.no_truncation()  # the file truncates and pads to the model's input length:
    tokenizer.no_padding()  # we count whole documents
    return lambda text: len(tokenizer.encode(text, add_special_tokens=False).ids)


def ways_in(store: GraphStore, package: str, entry: str | None, rows: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Screen id → the element labels of the cheapest way in from `entry` over the elements of these
    rows (this version's), by the one route search and cost of graph/routes.py."""
    if entry is None:
        return {}
    labels = {r["element_id"]: r["label"] or "(unlabelled)" for r in rows}
    routes, _ = load_routes(store, [package])
    inside = Routes.of(e for edges in routes.edges.values() for e in edges if e.element_id in labels)
    out = {entry: []}
    for screen in inside.reached(entry):
        out[screen] = [labels[h.element_id] for h in inside.route(entry, screen) or []]
    return out


def app_doc(store: GraphStore, package: str, count, budget: int = BUDGET) -> dict[str, Any]:
    """The document of `package`'s current version as JSON-ready data, within `budget` tokens."""
    versions = store.read("recall_versions", packages=[package])
    if not versions:
        raise DocError(f"no document of {package!r}: memory holds no crawl, import or run of it (only screens "
                       "other apps reached)")
    version = versions[0]["app_version"]
    rows = store.read("appdoc_elements", package=package, version=version)
    mine = {r["screen_id"] for r in rows}
    entries = [e["screen_id"] for e in store.read("planner_entry_screens", packages=[package]) if e["screen_id"] in mine]
    way = ways_in(store, package, entries[0] if entries else None, rows)  # where runs of this version entered the app
    screens: dict[str, dict[str, Any]] = {}
    titles = {r["screen_id"]: r["title"] for r in rows}
    labels: dict[str, list[str]] = {}
    for r in rows:
        if r["label"]:
            labels.setdefault(r["screen_id"], []).append(r["label"])
    for r in rows:
        screen = screens.setdefault(r["screen_id"], {"id": r["screen_id"], "name": r["title"] or "",
                                                     "summary": r["summary"] or "",
                                                     "way_in": way.get(r["screen_id"]), "elements": []})
        opens = max(r["opens"], key=lambda o: shown_counts(o["counts"])["observations"]) if r["opens"] else None
        if not r["label"] and opens is None:
            continue  # nothing to name it by and nothing it does: no use to a script writer
        effect = ""
        if opens is not None:
            shown = ", ".join(labels.get(opens["screen_id"], [])[:AVAILABLE])
            effect = f"opens {titles.get(opens['screen_id']) or opens['title'] or 'a screen'}" + (f" ({shown})" if shown else "")
        screen["elements"].append({"name": r["label"] or "", "description": r["description"] or "",
                                   "effect": effect, "locators": list(r["locators"] or [])[:LOCATORS]})
    ordered = sorted(screens.values(), key=lambda s: (s["way_in"] is None, len(s["way_in"] or []), s["id"]))
    for s in ordered:
        s["elements"].sort(key=lambda e: (not e["effect"], e["name"]))
    return trim({"package": package, "version": version, "screens": ordered}, count, budget)


def trim(doc: dict[str, Any], count, budget: int) -> dict[str, Any]:
    """Whole screens and elements, most useful first, until `budget` tokens are spent: every
    screen's name and way in, then the elements that open something (the app's map), then
    the others, then the screens' summaries; screens nearer the entry first within each round."""
    rounds = [(0, i, None) for i in range(len(doc["screens"]))]
    for kind in (1, 2):
        rounds += [(kind, i, e) for i, s in enumerate(doc["screens"]) for e in s["elements"]
                   if bool(e["effect"]) == (kind == 1)]
    rounds += [(3, i, None) for i, s in enumerate(doc["screens"]) if s["summary"]]
    kept: dict[int, list] = {}
    summaries: set[int] = set()
    used = 0
    for kind, i, element in rounds:
        if kind and i not in kept:
            continue
        screen = doc["screens"][i]
        cost = (count(markdown_screen({**screen, "summary": "", "elements": []})) if kind == 0 else
                count(screen["summary"]) if kind == 3 else count(markdown_element(element)))
        if used + cost > budget:
            continue
        used += cost
        if kind == 0:
            kept[i] = []
        elif kind == 3:
            summaries.add(i)
        else:
            kept[i].append(element)
    screens = [{**s, "summary": s["summary"] if i in summaries else "",
                "elements": [e for e in s["elements"] if any(e is k for k in kept[i])]}
               for i, s in enumerate(doc["screens"]) if i in kept]
    total = sum(len(s["elements"]) for s in doc["screens"])
    all_text = "\n".join(markdown_screen(s) for s in doc["screens"])
    return {**doc, "screens": screens, "tokens": used, "tokens_untrimmed": count(all_text), "budget": budget,
            "dropped": {"screens": len(doc["screens"]) - len(screens),
                        "elements": total - sum(len(s["elements"]) for s in screens)}}


def markdown_element(e: dict[str, Any]) -> str:
    parts = [f"- **{e['name'] or '(unlabelled)'}**"]
    if e["description"]:
        parts.append(f": {e['description']}")
    if e["effect"] and "opens" not in e["description"]:  # the simulated task often says it already
        parts.append(f"; {e['effect']}")
    parts.append(". Locators: " + " | ".join(f"`{x}`" for x in e["locators"]))
    return "".join(parts)


def markdown_screen(s: dict[str, Any]) -> str:
    way = "not reached from the entry" if s["way_in"] is None else (" › ".join(s["way_in"]) or "the entry screen")
    lines = [f"## {s['name'] or s['id']}", f"Way in: {way}"]
    if s["summary"]:
        lines.append(s["summary"])
    lines += [markdown_element(e) for e in s["elements"]]
    return "\n".join(lines)


def render(doc: dict[str, Any], fmt: str) -> str:
    if fmt == "json":
        return json.dumps(doc, indent=1, ensure_ascii=False)
    head = (f"# {doc['package']} {doc['version']}\n{len(doc['screens'])} screens, {doc['tokens']} tokens "
            f"(of {doc['tokens_untrimmed']}; dropped {doc['dropped']['screens']} screens, "
            f"{doc['dropped']['elements']} elements)\n")
    return head + "\n\n".join(markdown_screen(s) for s in doc["screens"])
