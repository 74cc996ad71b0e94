"""Hints for step-wise agents (AutoDroid's memory injection): what each element of the current screen leads to.

An agent that plans with its own LLM, one step at a time, shows it the current
screen. `hints` annotates that screen's elements from memory: for each element
that lies on a route to one of the task's best targets (retrieved by meaning,
as the planner does), what acting on it opens and how many steps it then
takes to reach the target, e.g.
`- "Settings": leads to Settings; then 2 more steps to "Delete all events"`.

The current screen is located as the planner locates it (agent/locate.py: exact
signature, else the most similar screen); elements of the memory's screen that
the agent's screen does not show are left out when the match is exact.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from agent.crossapp import best_path
from agent.locate import locate
from graph.model import UIState
from graph.screens import elements_of, screen_of
from graph.store import GraphStore
from semantic.embedder import Embedder
from semantic.ranking import search_elements
from semantic.vectors import VectorStore

TARGETS = 5
HOP_COST = 0.03  # as the planner: a hop must buy this much retrieval score


def hints(store: GraphStore, vectors: VectorStore, embedder: Embedder, task: str, package: str,
          state: UIState) -> dict[str, Any]:
    """For each element of `state` on a route to the task's targets: what it leads to, and the steps left."""
    located = locate(store, package, state)
    screen_id, match = located["screen_id"], located["match"]
    targets = search_elements(vectors, embedder.embed([task])[0], task, TARGETS, [package])
    out: dict[str, Any] = {"task": task, "package": package, "screen_id": screen_id, "match": match,
                           "targets": [{"label": t.payload.get("label"), "screen_id": t.payload.get("screen_id"),
                                        "score": round(t.score, 4)} for t in targets], "hints": []}
    if screen_id is None:
        return out
    edges = store.read("hints_edges", screen_id=screen_id)
    # Ids of the elements the agent's screen shows, as the located screen's elements are keyed.
    shown = {e.id for e in elements_of(state, replace(screen_of(state, package, ""), id=screen_id)).values()
             } if match == "exact" else set()
    for edge in edges:
        if shown and edge["element_id"] not in shown:
            continue  # not on the agent's screen now
        best = None
        for target in targets:
            if target.payload.get("element_id") == edge["element_id"]:
                steps = 0
            else:
                path = best_path(store, edge["target"], target.payload.get("screen_id") or "")
                if path is None:
                    continue
                steps = len(path) + 1
            value = target.score - HOP_COST * steps
            if best is None or value > best[0]:
                best = (value, steps, target)
        if best is None:
            continue
        value, steps, target = best
        out["hints"].append({"element": edge["label"], "element_id": edge["element_id"], "locators": edge["locators"],
                             "action": edge["action"], "leads_to": edge["target_title"], "to_screen": edge["target"],
                             "target": target.payload.get("label"), "steps_after": steps, "score": round(value, 4),
                             "text": hint_text(edge["label"], edge["target_title"], steps, target.payload.get("label"))})
    best_per_element: dict[str, dict[str, Any]] = {}
    for h in sorted(out["hints"], key=lambda h: (-h["score"], h["steps_after"])):
        best_per_element.setdefault(h["element_id"], h)  # an element opening several screens: its best route
    out["hints"] = list(best_per_element.values())
    return out


def hint_text(label: str, leads_to: str, steps: int, target: str) -> str:
    """The line an agent puts into its prompt."""
    if steps == 0:
        return f'"{label}": does the task ("{target}")'
    return f'"{label}": leads to {leads_to}; then {steps} more step{"s" if steps > 1 else ""} to "{target}"'
