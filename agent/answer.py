"""What an agent asks of the memory, answered in one order for the CLI, the API and MCP.

`Answerer` owns one Planner (whose per-app graphs and element indexes stay loaded) and
one Recall over the same stores. A plan request goes:
1. which app: the one named, else the one a fitting stored task or the best element names
   (agent/apps.py);
2. where the agent is: a screen id, or a dumped screen located in memory (agent/locate.py);
3. recall: a stored task that fits, adapted to the new parameters (agent/recall.py);
4. else the planner over the memory (agent/planner.py);
5. steps that switch apps go in front where the agent is in another app (agent/crossapp.py);
6. where the agent said where it is, the plan carries hints for its current screen
   (agent/hints.py): what each element there leads to, for agents that plan step by step.
"""
from __future__ import annotations

from typing import Any, Callable

from appmem.agent.apps import choose_app, named_package
from appmem.agent.crossapp import connect, packages_of
from appmem.agent.hints import hints
from appmem.agent.locate import locate
from appmem.agent.planjson import plan_to_dict
from appmem.agent.planner import Planner, PlanningError
from appmem.agent.recall import Recall
from appmem.errors import InvalidInput
from appmem.formats.ui import UIState
from appmem.graph.model import Plan
from appmem.graph.store import GraphStore
from appmem.semantic.search import resolve_app
from appmem.semantic.embedder import Embedder
from appmem.semantic.vectors import VectorStore


class Answerer:
    def __init__(self, store: GraphStore, vectors: VectorStore, embedder: Embedder, k: int | None = None,
                 known: Callable[[], list[str]] | None = None) -> None:
        """`known`: the summarised apps' packages (default: read from the graph on each plan; a server keeps them)."""
        self.store = store
        self.known = known or (lambda: [r["package"] for r in store.read("semantic_packages")])
        self.planner = Planner(store, vectors, embedder, **({"k": k} if k else {}))
        self.recall = Recall(store, vectors, embedder, self.planner)

    def forget(self, packages: list[str] | None = None) -> None:
        """Drop what was read of the memory (after an ingest changed it): all, or of these apps."""
        self.planner.forget(packages)

    def packages(self, app: str | None) -> list[str]:
        known = self.known()
        if not known:
            raise PlanningError("the memory holds no summarised app yet: import or crawl one, then `appmem summarize`")
        return resolve_app(known, app)

    def plan(self, task: str, app: str | None = None, start: str | UIState | None = None,
             k: int | None = None, came_from: dict[str, str] | None = None, avoid: list[dict[str, str]] | None = None
             ) -> tuple[Plan, dict[str, Any] | None]:
        """The plan, and how the app was chosen when none was named (None when it was); `came_from`: the agent's
        previous step (its plan's first hop is weighed after it: graph/routes.py); `avoid`: steps that failed
        from their screens in the agent's run (routes leave them out)."""
        if not task.strip():
            raise InvalidInput("task", "the task is empty")
        choice = None
        named, task = named_package(self.known(), task)
        app = app or named
        if app:
            packages = self.packages(app)
        else:
            choice = choose_app(self.recall, task)
            if choice is None:
                raise PlanningError("no element memory at all: run `appmem summarize` first")
            packages = [choice.package]
        start_id = start if isinstance(start, str) or start is None else self.locate(packages[0], start)["screen_id"]
        plan = self.recall.recall(task, packages, start_id)
        if plan is None:
            # From another app's screen, the app's own plan starts at its entry; connect() puts
            # the switch in front (an observed cross-app path, else the launcher).
            here = packages_of(self.store, [start]).get(start) if isinstance(start, str) else None
            elsewhere = here is not None and here not in packages
            plan = self.planner.plan(task, packages, None if elsewhere else start, k, came_from, avoid)
            if elsewhere and plan.route == "none":  # the app has no entry of its own: go from the start's app
                plan = self.planner.plan(task, packages + [here], start, k)
            plan = connect(self.store, plan, start_id, self.planner.graph(packages).packages_of(
                [s.screen_id for s in plan.steps]))
        return plan, (choice.as_dict() if choice else None)

    def answer(self, task: str, app: str | None = None, start: str | UIState | None = None,
               k: int | None = None, came_from: dict[str, str] | None = None,
               avoid: list[dict[str, str]] | None = None) -> dict[str, Any]:
        """The plan JSON every front end returns: the plan, how the app was chosen (without
        `app`), and hints for the agent's current screen (when `start` says where it is)."""
        plan, choice = self.plan(task, app, start, k, came_from, avoid)
        out = plan_to_dict(plan)
        if choice is not None:
            out["app_choice"] = choice
        if start is not None:
            # Hints lead to the task's targets, which live in the plan's app: on another app's screen
            # (a launcher, a permission page) there are none to give.
            package = start.package if isinstance(start, UIState) else packages_of(self.store, [start]).get(start)
            out["hints"] = self.hints(task, package, start)["hints"] if package == plan.package else []
        return out

    def locate(self, package: str, state: UIState | str) -> dict[str, Any]:
        return locate(self.store, package, state, self.planner.graph([package]))

    def hints(self, task: str, package: str, state: UIState | str) -> dict[str, Any]:
        return hints(self.store, self.planner.vectors, self.planner.embedder, task, package, state,
                     self.planner.graph([package]), self.planner.index([package]))
