"""CLI: `appmem plan` (a plan from the memory) and `appmem locate` (where in the memory a screen is)."""
from __future__ import annotations

import argparse
from pathlib import Path

from appmem.cli import emit
from appmem.errors import InputFormatError
from appmem.settings import Settings


def _screen_args(p: argparse.ArgumentParser, with_id: bool) -> None:
    group = p.add_mutually_exclusive_group(required=not with_id)
    group.add_argument("--screen-xml", type=Path, help="the agent's screen: a uiautomator XML dump")
    group.add_argument("--screen-html", type=Path, help="the agent's screen: an AutoDroid HTML state")
    if with_id:
        group.add_argument("--screen", help="the agent's screen id (default: where recorded runs entered the app)")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("plan", help="plan a task over the app memory: steps with element locators")
    p.add_argument("task_text", nargs="?", metavar="TASK", help="the task (or --task)")
    p.add_argument("--task", help="the task")
    p.add_argument("--app", required=True, help="package or short app name")
    _screen_args(p, with_id=True)
    p.add_argument("--k", type=int, default=10, help="targets retrieved and planned to (default 10)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=run_plan)
    p = sub.add_parser("locate", help="find the agent's screen in the app memory: exact, similar or unknown")
    p.add_argument("--app", required=True, help="package or short app name")
    _screen_args(p, with_id=False)
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=run_locate)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputFormatError(str(path), f"cannot be read: {exc}") from None


def _screen(args: argparse.Namespace, package: str):
    from agent.locate import state_from_html, state_from_xml

    if args.screen_xml:
        return state_from_xml(_read(args.screen_xml), package, str(args.screen_xml))
    if args.screen_html:
        return state_from_html(_read(args.screen_html), package, str(args.screen_html))
    return getattr(args, "screen", None)


def run_plan(settings: Settings, args: argparse.Namespace) -> int:
    from agent.planjson import plan_to_dict
    from agent.planner import Planner
    from appmem.clients import open_graph
    from semantic.commands import resolve_app
    from semantic.embedder import Embedder
    from semantic.vectors import VectorStore, open_qdrant

    task = args.task or args.task_text
    if not task:
        raise InputFormatError("appmem plan", "no task given (TASK or --task)")
    store = open_graph(settings)
    client = open_qdrant(settings)
    try:
        packages = resolve_app([r["package"] for r in store.read("semantic_packages")], args.app)
        embedder = Embedder(settings.home)
        planner = Planner(store, VectorStore(client, embedder.dim), embedder, k=args.k)
        plan = planner.plan(task, packages, _screen(args, packages[0]))
    finally:
        client.close()
        store.driver.close()
    emit(args, plan_to_dict(plan), _human)
    return 0


def _human(p: dict) -> str:
    if p["route"] == "none":
        return "no route from the start screen; best targets:\n" + "\n".join(
            f"  {a['label']} on {a['screen'] or a['screen_id']} ({a['score']})" for a in p["alternatives"])
    return "\n".join(
        f"{i}. {s['action']} {(s['element'] or {}).get('label') or ''}"
        + (f" ← {s['input']!r}" if s["input"] else "") + (f" [{s['slot']}]" if s["slot"] else "")
        + ("  [confirm: risky]" if s["risky"] else "") for i, s in enumerate(p["steps"], 1))


def run_locate(settings: Settings, args: argparse.Namespace) -> int:
    from agent.locate import locate
    from appmem.clients import open_graph
    from semantic.commands import resolve_app

    store = open_graph(settings)
    try:
        packages = resolve_app([r["package"] for r in store.read("semantic_packages")], args.app)
        found = locate(store, packages[0], _screen(args, packages[0]))
    finally:
        store.driver.close()
    emit(args, found, lambda f: f"{f['match']}: {f['screen_id']} ({f['score']})")
    return 0
