"""CLI for agents: `appmem plan`, `appmem locate`, `appmem hints`, `appmem doc` (agent/service.py answers).

With APPMEM_SERVER (and APPMEM_KEY) set, plan, locate and hints ask that
running server (nothing to load: fast); else they open the local stores.
"""
from __future__ import annotations

import argparse
import base64
from contextlib import contextmanager
from pathlib import Path

from appmem.arguments import app_name, count, task_text
from appmem.output import emit, show
from appmem.errors import InputFormatError, InvalidInput
from appmem.settings import Settings


def _screen_args(p: argparse.ArgumentParser, required: bool, with_id: bool) -> None:
    group = p.add_mutually_exclusive_group(required=required)
    group.add_argument("--screen-xml", type=Path, help="the agent's screen: a uiautomator XML dump")
    group.add_argument("--screen-html", type=Path, help="the agent's screen: an AutoDroid HTML state")
    group.add_argument("--screenshot", type=Path, help="the agent's screen: a PNG or JPEG screenshot (needs --app)")
    if with_id:
        group.add_argument("--screen", help="the agent's screen id (default: where recorded runs entered the app)")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("plan", help="plan a task over the app memory: steps with element locators")
    p.add_argument("task_text", nargs="?", metavar="TASK", type=task_text, help="the task (or --task)")
    p.add_argument("--task", type=task_text, help="the task")
    p.add_argument("--app", type=app_name, help="package or short app name (default: the app the memory finds for the task)")
    _screen_args(p, required=False, with_id=True)
    p.add_argument("--k", type=count, default=None, help="targets retrieved and planned to (default 10)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=run_plan)
    p = sub.add_parser("locate", help="find the agent's screen in the app memory: exact, similar or unknown")
    p.add_argument("--app", required=True, type=app_name, help="package or short app name")
    _screen_args(p, required=True, with_id=False)
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=run_locate)
    h = sub.add_parser("hints", help="what each element of the agent's current screen leads to, for a task")
    h.add_argument("--task", required=True, type=task_text)
    h.add_argument("--app", required=True, type=app_name, help="package or short app name")
    _screen_args(h, required=True, with_id=False)
    h.add_argument("--json", action="store_true")
    h.set_defaults(handler=run_hints)
    d = sub.add_parser("doc", help="the app document: screens, elements, effects, locators, ways in")
    d.add_argument("--app", required=True, type=app_name, help="package or short app name")
    d.add_argument("--format", choices=("json", "markdown"), default="markdown")
    d.add_argument("--budget", type=count, default=None, help="token budget (default 4000)")
    d.set_defaults(handler=run_doc)


@contextmanager
def backend(settings: Settings, graph_only: bool = False):
    """The front door: a running server when APPMEM_SERVER is set, else the local stores (the graph
    alone with `graph_only`)."""
    from appmem.agent.service import Service, open_backend

    opened = Service.open(settings, vectors=False) if graph_only else open_backend(settings)
    try:
        yield opened
    finally:
        opened.close()


def _read(path: Path | None) -> str | None:
    if path is None:
        return None
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputFormatError(str(path), f"cannot be read: {exc}") from None
    if not text.strip():
        raise InputFormatError(str(path), "is empty: no screen to read")
    return text


def _picture(path: Path | None) -> str | None:
    """A screenshot file as the contract sends it (base64); a file that is no screenshot fails here, naming it."""
    if path is None:
        return None
    from appmem.formats.image import MAX_BYTES, decode_image

    try:
        with path.open("rb") as file:
            data = file.read(MAX_BYTES + 1)  # past the bound is refused, however large the file
    except OSError as exc:
        raise InputFormatError(str(path), f"cannot be read: {exc}") from None
    decode_image(data, str(path))
    return base64.b64encode(data).decode("ascii")


def _screens(args: argparse.Namespace) -> dict[str, str | None]:
    return {"screen_xml": _read(args.screen_xml), "screen_html": _read(args.screen_html),
            "screenshot": _picture(args.screenshot)}


def run_plan(settings: Settings, args: argparse.Namespace) -> int:
    task = args.task or args.task_text
    if not task:
        raise InvalidInput("appmem plan", "no task given (TASK or --task)")
    if args.screenshot and not args.app:
        raise InvalidInput("--screenshot", "a screenshot names no app: add --app")
    screens = _screens(args)  # a file that cannot be read fails before any store is opened
    with backend(settings) as door:
        out = door.plan(task, args.app, screen_id=args.screen, k=args.k, **screens)
    emit(args, out.model_dump(), _human)
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
    screens = _screens(args)
    with backend(settings) as door:
        found = door.locate(args.app, **screens)
    emit(args, found.model_dump(), lambda f: f"{f['match']}: {f['screen_id']} ({f['score']})")
    return 0


def run_hints(settings: Settings, args: argparse.Namespace) -> int:
    screens = _screens(args)
    with backend(settings) as door:
        out = door.hints(args.task, args.app, **screens)
    emit(args, out.model_dump(), lambda h: "\n".join(f"- {x['text']}" for x in h["hints"]) or "no hints")
    return 0


def run_doc(settings: Settings, args: argparse.Namespace) -> int:
    from appmem.agent.appdoc import render

    with backend(settings, graph_only=True) as door:
        doc = door.doc(args.app, args.budget)
    show(render(doc, args.format))  # summaries an LLM wrote: no terminal control gets through
    return 0
