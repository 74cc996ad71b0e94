"""CLI for agents: `appmem plan`, `appmem locate`, `appmem hints`, `appmem doc` (agent/answer.py answers)."""
from __future__ import annotations

import argparse
from contextlib import contextmanager
from pathlib import Path

from appmem.output import emit
from appmem.errors import InputFormatError, InvalidInput
from appmem.settings import Settings


def _screen_args(p: argparse.ArgumentParser, required: bool, with_id: bool) -> None:
    group = p.add_mutually_exclusive_group(required=required)
    group.add_argument("--screen-xml", type=Path, help="the agent's screen: a uiautomator XML dump")
    group.add_argument("--screen-html", type=Path, help="the agent's screen: an AutoDroid HTML state")
    if with_id:
        group.add_argument("--screen", help="the agent's screen id (default: where recorded runs entered the app)")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("plan", help="plan a task over the app memory: steps with element locators")
    p.add_argument("task_text", nargs="?", metavar="TASK", help="the task (or --task)")
    p.add_argument("--task", help="the task")
    p.add_argument("--app", help="package or short app name (default: the app the memory finds for the task)")
    _screen_args(p, required=False, with_id=True)
    p.add_argument("--k", type=int, default=None, help="targets retrieved and planned to (default 10)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=run_plan)
    p = sub.add_parser("locate", help="find the agent's screen in the app memory: exact, similar or unknown")
    p.add_argument("--app", required=True, help="package or short app name")
    _screen_args(p, required=True, with_id=False)
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=run_locate)
    h = sub.add_parser("hints", help="what each element of the agent's current screen leads to, for a task")
    h.add_argument("--task", required=True)
    h.add_argument("--app", required=True, help="package or short app name")
    _screen_args(h, required=True, with_id=False)
    h.add_argument("--json", action="store_true")
    h.set_defaults(handler=run_hints)
    d = sub.add_parser("doc", help="the app document: screens, elements, effects, locators, ways in")
    d.add_argument("--app", required=True, help="package or short app name")
    d.add_argument("--format", choices=("json", "markdown"), default="markdown")
    d.add_argument("--budget", type=int, default=None, help="token budget (default 4000)")
    d.set_defaults(handler=run_doc)


@contextmanager
def answerer(settings: Settings, k: int | None = None):
    from agent.answer import Answerer
    from graph.clients import open_graph
    from semantic.embedder import Embedder
    from semantic.vectors import VectorStore, open_qdrant

    store = open_graph(settings)
    client = open_qdrant(settings)
    try:
        embedder = Embedder(settings.home)
        yield Answerer(store, VectorStore(client, embedder.dim), embedder, k)
    finally:
        client.close()
        store.driver.close()


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


def _dump_package(state) -> str | None:
    """The package most of a dump's views name (a dump names no foreground app of its own)."""
    from collections import Counter

    names = Counter(v.package for v in state.views if v.package)
    return names.most_common(1)[0][0] if names else None


def run_plan(settings: Settings, args: argparse.Namespace) -> int:
    task = args.task or args.task_text
    if not task:
        raise InvalidInput("appmem plan", "no task given (TASK or --task)")
    with answerer(settings, args.k) as answers:
        app, choice = args.app, None
        if (args.screen_xml or args.screen_html) and not app:
            # No --app: choose the app from the task and the screen, then locate the screen in it.
            from agent.apps import app_for_screen

            named = _dump_package(_screen(args, "")) if args.screen_xml else None
            choice = app_for_screen(answers.recall, answers.locate, task, lambda p: _screen(args, p), named or None)
            if choice is None:
                raise InvalidInput("appmem plan", "no element memory at all: run `appmem summarize` first")
            app = choice.package
        start = _screen(args, answers.packages(app)[0]) if app else args.screen
        out = answers.answer(task, app, start, args.k)
        if choice is not None:
            out["app_choice"] = choice.as_dict()
    emit(args, out, _human)
    return 0


def _human(p: dict) -> str:
    if p["route"] == "none":
        return "no route from the start screen; best targets:\n" + "\n".join(
            f"  {a['label']} on {a['screen'] or a['screen_id']} ({a['score']})" for a in p["alternatives"])
    return f"[{p['source']}] {p['package']}\n" + "\n".join(
        f"{i}. {s['action']} {(s['element'] or {}).get('label') or (s['element'] or {}).get('text') or ''}"
        + (f" ← {s['input']!r}" if s["input"] else "") + (f" [{s['slot']}]" if s["slot"] else "")
        + (f"  ({s['package']})" if s["package"] != p["package"] else "")
        + ("  [confirm: risky]" if s["risky"] else "") for i, s in enumerate(p["steps"], 1))


def run_locate(settings: Settings, args: argparse.Namespace) -> int:
    with answerer(settings) as answers:
        package = answers.packages(args.app)[0]
        found = answers.locate(package, _screen(args, package))
    emit(args, found, lambda f: f"{f['match']}: {f['screen_id']} ({f['score']})")
    return 0


def run_hints(settings: Settings, args: argparse.Namespace) -> int:
    with answerer(settings) as answers:
        package = answers.packages(args.app)[0]
        out = answers.hints(args.task, package, _screen(args, package))
    emit(args, out, lambda h: "\n".join(f"- {x['text']}" for x in h["hints"]) or "no hints")
    return 0


def run_doc(settings: Settings, args: argparse.Namespace) -> int:
    from agent.appdoc import BUDGET, app_doc, render, token_counter
    from graph.clients import open_graph
    from semantic.commands import resolve_app

    store = open_graph(settings)
    try:
        package = resolve_app([r["package"] for r in store.read("semantic_packages")], args.app)[0]
        doc = app_doc(store, package, token_counter(settings.home), args.budget or BUDGET)
    finally:
        store.driver.close()
    print(render(doc, args.format))
    return 0
