"""Which app: the package a task is for, when the agent does not say (`appmem plan` without `--app`).

Retrieval runs over every app in memory. A stored task that fits (recall)
names its app outright; otherwise each package scores by its best element
(`semantic.ranking.ElementIndex`, the one element scorer, over all apps'
elements, so the overlap's word weights are those of the whole memory: a word
every app has weighs little, an app's own name weighs much), and the best
package wins; an element of a screen that is another app's entry counts for
that app (`owners`: AutoDroid HTML names no app, so an exploration that launched
another app files that app's screens as its own). A screen the agent sends that
names no app is looked up in every app (`app_for_screen`). No word list and no
constant tuned on task texts. The index of
every app is the planner's (`Planner.index(None)`): built once, kept until an
app changes (agent/service.py follows the apps' generations), so a query does
not pay for reading the whole memory.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from appmem.agent.locate import html_activity
from appmem.agent.recall import Recall
from appmem.errors import NotFound
from appmem.graph.screens import screen_id, signature_parts
from appmem.graph.vocabulary import without_package
from appmem.semantic.embedder import Embedder
from appmem.semantic.ranking import ElementIndex
from appmem.semantic.search import element_index

# Elements retrieved over all apps before they are grouped by package.
POOL_HITS = 30


@dataclass
class ChosenApp:
    package: str
    score: float
    by: str  # "recall" | "elements"
    ranking: list[tuple[str, float]]


def rank_packages(index: ElementIndex, embedder: Embedder, task: str, recall: Recall | None = None
                  ) -> list[tuple[str, float]]:
    """Packages by their best element for `task` in `index` (every app's elements), best first; with
    `recall` (its planner's app graphs), an element of a screen that another app holds nearer its entry
    counts for that app (`owners`)."""
    hits = index.search(embedder.query(task), task, POOL_HITS)
    owner = owners(recall, hits) if recall is not None and recall.planner is not None else {}
    best: dict[str, float] = {}
    for hit in hits:
        package = hit.payload.get("package") or ""
        package = owner.get((package, hit.payload.get("screen_id") or ""), package)
        best[package] = max(best.get(package, hit.score), hit.score)
    return sorted(best.items(), key=lambda kv: -kv[1])


def owners(recall: Recall, hits: list) -> dict[tuple[str, str], str]:
    """(package, screen id) of a hit -> the app whose entry that screen is, where another of the hits'
    apps holds the same screen (the same elements) away from its own entry: AutoDroid HTML names no app,
    so an exploration that launched another app files that app's screens as its own. Only an entry
    decides: a dialog several apps share (a time picker, a colour picker) is deep in each of them."""
    packages = sorted({h.payload.get("package") or "" for h in hits} - {""})
    graphs = {p: recall.planner.graph([p]) for p in packages}
    out: dict[tuple[str, str], str] = {}
    for package, hit_screen_id in {(h.payload.get("package") or "", h.payload.get("screen_id") or "") for h in hits}:
        graph = graphs.get(package)
        if graph is None or hit_screen_id in graph.entries:
            continue
        mine = tuple(sorted(graph.screen_tokens.get(hit_screen_id, ())))
        if graph.by_elements.get(mine) != hit_screen_id:  # not the screen the app's memory holds for these elements
            continue
        entered = [p for p in packages if p != package and graphs[p].by_elements.get(mine) in graphs[p].entries]
        if entered:
            out[(package, hit_screen_id)] = entered[0]
    return out


# "… in org.example.app" closing a task: a package name (three or more dotted parts, reverse-domain: not a web
# address, which begins with www or ends in a top-level domain, nor a file name, which ends in its type)
ENDING_PACKAGE = re.compile(r"(?<![\w.])in\s+([A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+){2,})\s*[.!]?\s*$")
NOT_PACKAGE_ENDS = ("com", "org", "net", "edu", "gov", "info", "html", "htm", "php", "pdf", "txt", "csv", "json", "xml",
                    "doc", "docx", "xls", "xlsx", "jpg", "jpeg", "png", "gif", "mp3", "mp4", "zip", "gz", "apk")


def _package_like(name: str) -> bool:
    end = name.rsplit(".", 1)[-1].lower()
    return not name.lower().startswith("www.") and len(end) > 2 and end not in NOT_PACKAGE_ENDS


def named_package(known: list[str], task: str) -> tuple[str | None, str]:
    """The package the task names outright ("... in org.example.app"), the longest when several do, and
    the task without it: a package name says where, not what (its words would match the app's own
    name on its about screen). A task that ends naming a package memory does not know names that package
    (resolving it then says memory has no such app), not the best app for its words."""
    # a substring test first: a pattern per known app per request would grow with the memory
    named = [p for p in known if "." in p and p in task and re.search(rf"(?<![\w.]){re.escape(p)}(?![\w.])", task)]
    if not named:
        ending = ENDING_PACKAGE.search(task)
        unknown = ending.group(1) if ending else ""
        if unknown and _package_like(unknown):
            return unknown, without_package(task, unknown)
        return None, task
    package = max(named, key=len)
    return package, without_package(task, package)


def choose_app(recall: Recall, task: str) -> ChosenApp | None:
    """The app `task` is for, or None when memory holds no element at all."""
    matches = recall.matches(task)
    index = element_index(recall.vectors, recall.embedder, None,
                          recall.planner.index(None) if recall.planner is not None else None)
    ranking = rank_packages(index, recall.embedder, task, recall)
    if matches:
        return ChosenApp(matches[0].row["package"], matches[0].score, "recall", ranking)
    if not ranking:
        return None
    return ChosenApp(ranking[0][0], ranking[0][1], "elements", ranking)


SCREEN_APPS = 3  # the best apps for the task in which an agent's screen is also looked for by similarity


def app_for_screen(recall: Recall, locate_in, task: str, parse, activity: str | None = None) -> ChosenApp | None:
    """The app of a task asked from a screen that names no app (AutoDroid HTML) without `--app`.
    The screen is looked up in every app by its exact signature (one graph read), and by similarity
    (`locate_in(package, state)`) in the SCREEN_APPS best apps for the task. Of the apps that hold
    it, the best match wins, then the app where it lies nearest the app's entry (an exploration that
    left its app, through a launcher or a share sheet, files the other app's screens as its own:
    far from its entry), then the task's order; none holds it: the best app for the task.
    `parse(package)` reads the screen as one of that package (agent/locate.py `html_reader`: parsed
    once); `activity`, the one the agent sent, if any."""
    choice = choose_app(recall, task)
    if choice is None:
        return None
    ranked = [p for p, _ in choice.ranking]
    found: dict[str, tuple[bool, float, str]] = {}  # package -> (exact, score, screen id)
    known = [r["package"] for r in recall.store.read("semantic_packages")]
    # Its id in each app differs only by the package and the activity HTML screens get there: the
    # signature's parts are read once, not the screen once per app (≈ 0.12 ms an app before).
    parts = signature_parts(parse(choice.package))
    ids = [screen_id(package, html_activity(package, activity), parts) for package in known]
    for row in recall.store.read("app_choice_screens", ids=ids):
        found[row["package"]] = (True, 1.0, row["id"])
    for package in ranked[:SCREEN_APPS]:
        if package in found:
            continue
        try:
            match = locate_in(package, parse(package))
        except NotFound:  # vectors without screens (a graph emptied or purged apart from them): not this app
            continue
        if match["match"] == "similar":
            found[package] = (False, match["score"], match["screen_id"])
    if not found:
        return choice
    order = {p: i for i, p in enumerate(ranked)}
    best = min(found, key=lambda p: (not found[p][0], -found[p][1], entry_distance(recall, p, found[p][2]),
                                     order.get(p, len(order)), p))
    return ChosenApp(best, dict(choice.ranking).get(best, 0.0), "screen", choice.ranking)


def entry_distance(recall: Recall, package: str, screen_id: str) -> float:
    """Steps from where recorded runs entered `package` to `screen_id` in its memory (inf: no route)."""
    if recall.planner is None:
        return 0.0
    graph = recall.planner.graph([package])
    if screen_id in graph.entries:
        return 0.0
    routes = [graph.route(entry, screen_id) for entry in graph.entries]
    return min((len(r) for r in routes if r is not None), default=float("inf"))
