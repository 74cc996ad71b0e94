"""Hints for step-wise agents (AutoDroid's memory injection): what each element of the current screen leads to.

An agent that plans with its own LLM, one step at a time, shows it the current
screen. `hints` annotates that screen's elements from memory: for each element
that lies on a route to one of the task's best targets (retrieved by meaning,
as the planner does), what acting on it opens and how many steps it then
takes to reach the target, e.g.
`- "Settings": leads to Settings; then 2 more steps to "Delete all events"`.

The current screen is located as the planner locates it (agent/locate.py: exact
signature, else the most similar screen), or named by its id; elements of the memory's
screen that a dumped screen does not show are left out when the match is exact.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from appmem.agent.appgraph import AppGraph
from appmem.agent.locate import locate
from appmem.formats.ui import UIState
from appmem.graph.screens import elements_of, screen_of
from appmem.graph.store import GraphStore
from appmem.semantic.embedder import Embedder
from appmem.semantic.ranking import ElementIndex
from appmem.semantic.search import element_index
from appmem.semantic.vectors import VectorStore

TARGETS = 5
HOP_COST = 0.03  # as the planner: a hop must buy this much retrieval score


def hints(store: GraphStore, vectors: VectorStore, embedder: Embedder, task: str, package: str,
          state: UIState | str, graph: AppGraph | None = None, index: ElementIndex | None = None) -> dict[str, Any]:
    """For each element of `state` on a route to the task's targets: what it leads to, and the steps left.
    Routes and targets are the planner's: `graph` and `index` are the app's, when the caller holds them."""
    graph = graph or AppGraph.load(store, [package])
    located = locate(store, package, state, graph)
    screen_id, match = located["screen_id"], located["match"]
    vector = embedder.query(task)
    targets = element_index(vectors, embedder, [package], index).search(vector, task, TARGETS)
    out: dict[str, Any] = {"task": task, "package": package, "screen_id": screen_id, "match": match,
                           "targets": [{"label": t.payload.get("label"), "screen_id": t.payload.get("screen_id"),
                                        "score": round(t.score, 4)} for t in targets], "hints": []}
    if screen_id is None:
        return out
    # Ids of the elements the agent's screen shows, as the located screen's elements are keyed.
    shown = {e.id for e in elements_of(state, replace(screen_of(state, package, ""), id=screen_id)).values()
             } if match == "exact" and isinstance(state, UIState) else set()
    # Where each element of the screen leads (other screens than its own), most often observed first.
    edges = sorted((e for e in graph.edges.get(screen_id, ()) if e.element_id in graph.elements
                    and (not shown or e.element_id in shown)), key=lambda e: (-e.successes, e.element_id, e.target))
    best_per_element: dict[str, dict[str, Any]] = {}
    for edge in edges:
        best = None
        for target in targets:
            if target.payload.get("element_id") == edge.element_id:
                steps = 0
            else:
                path = graph.route(edge.target, target.payload.get("screen_id") or "")
                if path is None:
                    continue
                steps = len(path) + 1
            value = target.score - HOP_COST * steps
            if best is None or value > best[0]:
                best = (value, steps, target)
        if best is None:
            continue
        value, steps, target = best
        element = graph.elements[edge.element_id]
        leads_to = graph.screens.get(edge.target, {}).get("title") or ""
        hint = {"element": element.label, "element_id": element.id, "locators": element.locators,
                "action": edge.action, "leads_to": leads_to, "to_screen": edge.target,
                "target": target.payload.get("label"), "steps_after": steps, "score": round(value, 4),
                "text": hint_text(element.label, leads_to, steps, target.payload.get("label"))}
        kept = best_per_element.get(element.id)  # an element opening several screens: its best route
        if kept is None or (-hint["score"], hint["steps_after"]) < (-kept["score"], kept["steps_after"]):
            best_per_element[element.id] = hint
    out["hints"] = sorted(best_per_element.values(), key=lambda h: (-h["score"], h["steps_after"]))
    return out


def hint_text(label: str, leads_to: str, steps: int, target: str) -> str:
    """The line an agent puts into its prompt."""
    if steps == 0:
        return f'"{label}": does the task ("{target}")'
    return f'"{label}": leads to {leads_to}; then {steps} more step{"s" if steps > 1 else ""} to "{target}"'
