"""CLI: `appmem plan TASK --app P [--screen ID] --json`: a shortcut plan from the memory."""
from __future__ import annotations

import argparse

from appmem.cli import emit
from appmem.settings import Settings


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("plan", help="plan a task over the app memory: steps with element locators")
    p.add_argument("task")
    p.add_argument("--app", required=True, help="package or short app name")
    p.add_argument("--screen", help="the agent's current screen id (default: where recorded runs entered the app)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=run_plan)


def run_plan(settings: Settings, args: argparse.Namespace) -> int:
    from agent.planner import Planner, plan_to_dict
    from appmem.clients import open_graph
    from semantic.commands import resolve_app
    from semantic.embedder import Embedder
    from semantic.vectors import VectorStore, open_qdrant

    store = open_graph(settings)
    client = open_qdrant(settings)
    try:
        packages = resolve_app([r["package"] for r in store.read("semantic_packages")], args.app)
        embedder = Embedder(settings.home)
        plan = Planner(store, VectorStore(client, embedder.dim), embedder).plan(args.task, packages, args.screen)
    finally:
        client.close()
        store.driver.close()
    emit(args, plan_to_dict(plan), lambda p: "\n".join(
        f"{i}. {s['action']} {(s['element'] or {}).get('label') or ''}"
        + (f" ← {s['input']!r}" if s["input"] else "") + ("  [confirm: risky]" if s["risky"] else "")
        for i, s in enumerate(p["steps"], 1)))
    return 0
