"""CLI: `appmem plan TASK [--app P] [--screen ID]`, `appmem hints`, `appmem doc`: the memory for agents."""
from __future__ import annotations

import argparse
from contextlib import contextmanager
from pathlib import Path

from appmem.cli import emit
from appmem.errors import ConfigError
from appmem.settings import Settings


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("plan", help="plan a task over the app memory: steps with element locators")
    p.add_argument("task")
    p.add_argument("--app", help="package or short app name (default: the app memory finds for the task)")
    p.add_argument("--screen", help="the agent's current screen id (default: where recorded runs entered the app)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=run_plan)
    h = sub.add_parser("hints", help="what each element of the agent's current screen leads to, for a task")
    h.add_argument("--task", required=True)
    h.add_argument("--app", required=True, help="package or short app name")
    screen = h.add_mutually_exclusive_group(required=True)
    screen.add_argument("--screen-xml", type=Path, help="uiautomator dump of the current screen")
    screen.add_argument("--screen-html", type=Path, help="AutoDroid HTML of the current screen")
    h.add_argument("--activity", default="", help="foreground activity (uiautomator dumps do not name it)")
    h.add_argument("--json", action="store_true")
    h.set_defaults(handler=run_hints)
    d = sub.add_parser("doc", help="the app document: screens, elements, effects, locators, ways in")
    d.add_argument("--app", required=True, help="package or short app name")
    d.add_argument("--format", choices=("json", "markdown"), default="markdown")
    d.add_argument("--budget", type=int, default=None, help="token budget (default 4000)")
    d.set_defaults(handler=run_doc)


@contextmanager
def clients(settings: Settings, vectors: bool = True):
    from appmem.clients import open_graph
    from semantic.embedder import Embedder
    from semantic.vectors import VectorStore, open_qdrant

    store = open_graph(settings)
    client = open_qdrant(settings) if vectors else None
    try:
        if client is None:
            yield store, None, None
        else:
            embedder = Embedder(settings.home)
            yield store, VectorStore(client, embedder.dim), embedder
    finally:
        if client is not None:
            client.close()
        store.driver.close()


def packages_named(store, app: str) -> list[str]:
    from semantic.commands import resolve_app

    return resolve_app([r["package"] for r in store.read("semantic_packages")], app)


def run_plan(settings: Settings, args: argparse.Namespace) -> int:
    from agent.apps import choose_app
    from agent.crossapp import connect
    from agent.planner import Planner, PlanningError, plan_to_dict
    from agent.recall import Recall

    with clients(settings) as (store, vectors, embedder):
        planner = Planner(store, vectors, embedder)
        recall = Recall(store, vectors, embedder, planner)
        choice = None
        if args.app:
            packages = packages_named(store, args.app)
        else:
            choice = choose_app(recall, args.task)
            if choice is None:
                raise PlanningError("no element memory at all: run `appmem summarize` first")
            packages = [choice.package]
        plan = recall.recall(args.task, packages, args.screen)
        if plan is None:
            plan = connect(store, planner.plan(args.task, packages, args.screen), args.screen)
    out = plan_to_dict(plan)
    if choice is not None:
        out["app_choice"] = choice.as_dict()
    emit(args, out, lambda p: f"[{p['source']}] {p['package']}\n" + "\n".join(
        f"{i}. {s['action']} {(s['element'] or {}).get('label') or ''}"
        + (f" ← {s['input']!r}" if s["input"] else "") + (f"  ({s['package']})" if s["package"] != p["package"] else "")
        + ("  [confirm: risky]" if s["risky"] else "")
        for i, s in enumerate(p["steps"], 1)))
    return 0


def read_screen(args: argparse.Namespace, package: str):
    """The agent's current screen as a UIState, from a uiautomator dump or AutoDroid HTML."""
    path = args.screen_xml or args.screen_html
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot be read: {exc}") from None
    if args.screen_xml:
        from workers.uixml import parse_hierarchy, qualified_activity

        return parse_hierarchy(text, package, qualified_activity(package, args.activity) if args.activity else "",
                               where=str(path))
    from appmem.errors import InputFormatError
    from ingest.autodroid import activity_of
    from ingest.autodroid_html import HtmlSyntaxError, parse_html, state_from_elements

    try:
        return state_from_elements(parse_html(text), package, args.activity or activity_of(package))
    except HtmlSyntaxError as exc:
        raise InputFormatError(str(path), f"unparsable HTML: {exc}") from None


def run_hints(settings: Settings, args: argparse.Namespace) -> int:
    from agent.hints import hints

    with clients(settings) as (store, vectors, embedder):
        package = packages_named(store, args.app)[0]
        out = hints(store, vectors, embedder, args.task, package, read_screen(args, package))
    emit(args, out, lambda h: "\n".join(f"- {x['text']}" for x in h["hints"]) or "no hints")
    return 0


def run_doc(settings: Settings, args: argparse.Namespace) -> int:
    from agent.appdoc import BUDGET, app_doc, render, token_counter

    with clients(settings, vectors=False) as (store, _, _):
        package = packages_named(store, args.app)[0]
        doc = app_doc(store, package, token_counter(settings.home), args.budget or BUDGET)
    print(render(doc, args.format))
    return 0
