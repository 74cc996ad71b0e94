"""Recall: a task somebody already did is answered with its stored steps (MobileGPT's recall).

A stored Task (a gold demonstration, a corrected run, an agent run that
succeeded) is recalled for a new task when
- its text is near by meaning: cosine of the embedded texts (the `tasks`
  vectors) at least THRESHOLD, and
- it has the same structure: the two texts differ only in parameters
  (`agent.params.align`: values, names, choices its steps acted on).
Its steps are then adapted: every step that typed the old value types the new
one (slot "value"), every step that chose the old item chooses the new one
(slot "item": the element of the same screen that shows it, or a locator by
its text when memory never saw it). A parameter that no step can carry means
the demonstration does not fit: no recall.

Steps are checked against the current version of their app (the version seen
last): an element is looked up by its screen's signature and its structural
key there; at the first one that is gone, the rest is planned by the planner
from that step's screen. Among fitting tasks the nearest wins, then the one
whose executed runs succeeded most often: a run that replayed a recalled task
reports it back (`RunTrace.recalled_task`, counted per contributor by
ingest/run.py), and its counts rank a task once APPMEM_TRUST_QUORUM
contributors reported a run (`runs_trusted`), so no single key sinks or
raises a task for the others.

THRESHOLD was chosen leave-one-app-out on the six DroidTask apps by
`bench/recall.py` (which prints each app's choice), not from task texts.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from appmem.agent.crossapp import connect
from appmem.errors import AppmemError
from appmem.agent.params import Param, align, substitute, values
from appmem.formats.ui import ActionType
from appmem.graph.model import Element, RoutePlan, RouteStep, reliability
from appmem.graph.screens import xpath_literal
from appmem.graph.store import GraphStore, element_of
from appmem.formats.privacy import PLACEHOLDER, scrub_text
from appmem.semantic.embedder import Embedder
from appmem.semantic.layers import merged, nearest
from appmem.semantic.vectors import VectorStore

THRESHOLD = 0.72  # bench/recall.py part 5: the leave-one-app-out choice on 4 of 6 apps (others 0.63, 0.92)
CANDIDATES = 8


@dataclass
class Match:
    """A stored task that fits the new one, with the parameters that turn one into the other."""

    row: dict[str, Any]
    score: float
    params: list[Param]

    def as_dict(self) -> dict[str, Any]:
        r = self.row
        return {"task_id": r["id"], "description": r["description"], "package": r["package"],
                "source": r["source"], "trace_id": r["trace_id"], "devices": len(r["devices"]),
                "successes": r["successes"], "failures": r["failures"], "score": round(self.score, 4),
                "params": [{"old": p.old, "new": p.new} for p in self.params]}


def used_texts(row: dict[str, Any]) -> list[str]:
    """What a stored task's steps showed and typed: where its parameters can be."""
    return [x for s in row["steps"] for x in (s["text"], s["content_desc"], s["label"], s["input"]) if x]


def run_reliability(row: dict[str, Any]) -> float:
    """How often a stored task's executed runs succeeded, as far as enough contributors say (else untried)."""
    return reliability(row["successes"], row["failures"]) if row["runs_trusted"] else reliability(0, 0)


def scrubbed_value(placeholder: str, task: str) -> str | None:
    """The task's value that a typed placeholder stands for: memory keeps `<NUMBER>` where
    a user typed digits (formats/privacy.py), so the task's first value that scrubs to it."""
    return next((v for v in values(task) if scrub_text(v, typed=True) == placeholder), None)


def shown(element: Element) -> str:
    """What an element shows: its text or description (a field's value too, which is no label)."""
    return element.text or element.content_desc or element.label


def with_text(element: Element, old: str, new: str) -> Element:
    """The element showing `new` where it showed `old` (a list item memory never saw)."""
    def swap(value: str) -> str:
        return new if value.strip().lower() == old.lower() else value

    old_literal, new_literal = xpath_literal(element.text or element.content_desc), xpath_literal(new)
    locators = [loc.replace(old_literal, new_literal) for loc in element.locators if old_literal in loc]
    return replace(element, id="", text=swap(element.text), content_desc=swap(element.content_desc),
                   locators=locators or [f"//*[@text={new_literal}]"])


class Recall:
    """Recall over an injected graph store, vector store and embedder; `planner` plans
    what a recalled task cannot cover any more (an element gone from the current version)."""

    def __init__(self, store: GraphStore, vectors: VectorStore, embedder: Embedder, planner: Any = None,
                 threshold: float = THRESHOLD):
        self.store, self.vectors, self.embedder = store, vectors, embedder
        self.planner = planner
        self.threshold = threshold

    def matches(self, task: str, packages: list[str] | None = None) -> list[Match]:
        """Stored tasks that fit `task`, best first."""
        vector = self.embedder.query(task)
        hits = self.vectors.search("tasks", vector, k=CANDIDATES, packages=packages or None)
        if self.planner is not None:  # a tenant view's own demonstrations (semantic/layers.py) beside the shared
            hits = merged(hits, nearest(self.planner.own("tasks", packages or None), "tasks", vector, CANDIDATES),
                          CANDIDATES)
        hits = [h for h in hits if h.score >= self.threshold]
        if not hits:
            return []
        rows = {r["id"]: r for r in self.store.read("recall_tasks", ids=[h.payload["object_id"] for h in hits])}
        out = []
        for hit in hits:
            row = rows.get(hit.payload["object_id"])
            if row is None or not row["steps"]:
                continue
            params = align(row["description"], task, used_texts(row))
            if params is not None:
                out.append(Match(row, hit.score, params))
        return sorted(out, key=lambda m: (-round(m.score, 3), -run_reliability(m.row)))

    def recall(self, task: str, packages: list[str] | None = None, start_screen: str | None = None) -> RoutePlan | None:
        """The best fitting stored task's steps adapted to `task`, or None."""
        for match in self.matches(task, packages):
            plan = self.adapt(match, task)
            if plan is not None:
                plan.recalled = match.as_dict()
                return connect(self.store, plan, start_screen)
        return None

    def _current_ids(self, steps: list[dict[str, Any]]) -> list[str]:
        """Each step's element id where its screen was seen in the current version of its app,
        else "" (the element is gone: screen ids do not change across versions, and a screen
        that changed in what it shows or names is another screen)."""
        current = self._current_versions(sorted({s["package"] for s in steps}))
        return [s["element_id"] if self._is_current(s, current) else "" for s in steps]

    def _current_versions(self, packages: list[str]) -> dict[str, str]:
        current: dict[str, str] = {}
        for r in self.store.read("recall_versions", packages=packages):
            current.setdefault(r["package"], r["app_version"] or "")
        return current

    @staticmethod
    def _is_current(step: dict[str, Any], current: dict[str, str]) -> bool:
        version = current.get(step["package"])
        if version is None:
            return True
        # A screen seen only under an unknown (alias) version names no versions: its first one decides.
        return version in step["versions"] if step["versions"] else step["app_version"] == version

    def adapt(self, match: Match, task: str) -> RoutePlan | None:
        stored = match.row["steps"]
        ids = self._current_ids(stored)
        rows = self.store.elements(ids=ids)
        elements = {r["id"]: (element_of(r), r["risky"]) for r in rows}
        steps: list[RouteStep] = []
        carried: set[Param] = set()
        for i, (step, element_id) in enumerate(zip(stored, ids)):
            if element_id not in elements:
                return self._replan(match, task, steps, stored[i])
            element, risky = elements[element_id]
            if step["locators"]:  # as the demonstration saw it: an Element keeps only its latest observation
                element = replace(element, text=step["text"] or "", content_desc=step["content_desc"] or "",
                                  locators=list(step["locators"]))
            action, text, slot = ActionType(step["action"]), step["input"] or "", None
            for param in match.params:
                if (typed := substitute(text, param)) is not None:
                    text, slot = typed, "value"
                    carried.add(param)
                chosen = self._choose(element, param)
                if chosen is not None:
                    element, slot = chosen, "item"
                    carried.add(param)
            if PLACEHOLDER.fullmatch(text):  # memory kept a placeholder for what was typed (privacy)
                masked = next((p for p in match.params if PLACEHOLDER.fullmatch(p.old) and p not in carried), None)
                typed = masked.new if masked else scrubbed_value(text, task)
                if typed:
                    text, slot = typed, "value"
                    carried.update(p for p in match.params if typed == p.new or typed in values(p.new))
            steps.append(RouteStep(action, element, element.screen_id, text, risky, slot=slot))
        if carried != set(match.params):
            return None  # a parameter no step carries: this demonstration does not do the new task
        for step, after in zip(steps, steps[1:]):
            step.to_screen = after.screen_id
        self._layers(steps, match)
        return RoutePlan(task=task, package=match.row["package"], steps=steps, source="recall")

    def _layers(self, steps: list[RouteStep], match: Match) -> None:
        """Each step's layer: that of the edge its tap takes in the planner's graph (graph/routes.py), else
        the demonstration's own (a tenant's own demonstration is its layer). The public reads the public
        layer alone: its recall loads no graph for it."""
        if not self.store.viewer.tenant:
            return
        own = "public" if match.row.get("public", True) else "tenant"
        graph = self.planner.graph([match.row["package"]]) if self.planner is not None else None
        for step in steps:
            edges = [e for e in graph.edges.get(step.screen_id, ()) if step.element is not None
                     and e.element_id == step.element.id] if graph is not None else []
            step.layer = max(edges, key=lambda e: (e.reliability, e.successes)).layer if edges else own

    def _choose(self, element: Element, param: Param) -> Element | None:
        """The element of the same screen that shows the new value where `element` shows the old one."""
        label = shown(element)
        wanted = substitute(label, param)
        if wanted is None or wanted == label:
            return None
        for other in map(element_of, self.store.elements(screen_ids=[element.screen_id])):
            if shown(other).strip().lower() == wanted.strip().lower():
                return other
        if label.strip().lower() == param.old.lower():
            return with_text(element, param.old, param.new)
        return None

    def _replan(self, match: Match, task: str, done: list[RouteStep], step: dict[str, Any]) -> RoutePlan | None:
        """The recalled steps so far, then the planner's steps from the screen where an element is gone."""
        if self.planner is None:
            return None
        start = self._current_screen(step)
        if start is None and done and done[-1].element is not None:  # where the last recalled step leads now
            start = self.planner.graph([match.row["package"]]).opens(done[-1].element)
        try:
            rest = self.planner.plan(task, [match.row["package"]], start)
        except AppmemError:  # the planner has no answer either: recall has none
            return None
        steps = done + rest.steps
        for a, b in zip(steps, steps[1:]):
            a.to_screen = a.to_screen or b.screen_id
        plan = RoutePlan(task=task, package=match.row["package"], steps=steps, source="recall")
        plan.replanned_from = len(done)
        return plan

    def _current_screen(self, step: dict[str, Any]) -> str | None:
        """The step's screen if the current version of its app still shows it."""
        return step["screen_id"] if self._is_current(step, self._current_versions([step["package"]])) else None