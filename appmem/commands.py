"""CLI: the embedded stack (`up`, `down`, `status`) and what the graph holds (`stats`)."""
from __future__ import annotations

import argparse
from collections import Counter

from appmem.arguments import app_name
from appmem.output import emit
from appmem.settings import Settings
from appmem.stack import Stack


def register(sub: argparse._SubParsersAction) -> None:
    for name, handler, text in (("up", run_up, "start the embedded stack (idempotent)"),
                                ("down", run_down, "stop the embedded stack"),
                                ("status", run_status, "health of each service")):
        p = sub.add_parser(name, help=text)
        p.add_argument("--json", action="store_true")
        p.set_defaults(handler=handler)
    stats = sub.add_parser("stats", help="per app: screens, states, elements, transitions, traces, tasks")
    stats.add_argument("--app", type=app_name, help="only this app (a package or a short name)")
    stats.add_argument("--json", action="store_true")
    stats.set_defaults(handler=run_stats)


def run_up(settings: Settings, args: argparse.Namespace) -> int:
    stack = Stack(settings)
    started = stack.up()
    from appmem.graph.clients import open_graph

    store = open_graph(settings)
    try:
        store.ensure_schema()
    finally:
        store.driver.close()
    emit(args, {"started": started, "status": stack.status()},
         lambda r: "\n".join(f"{k}: {v}" for k, v in r["started"].items()) or "nothing to start (servers configured)")
    return 0


def run_down(settings: Settings, args: argparse.Namespace) -> int:
    stopped = Stack(settings).down()
    emit(args, stopped, lambda r: "\n".join(f"{k}: {'stopped' if v else 'not running'}" for k, v in r.items()))
    return 0


def run_status(settings: Settings, args: argparse.Namespace) -> int:
    status = Stack(settings).status()
    emit(args, status, lambda r: "\n".join(
        f"{k}: {'healthy' if v['healthy'] else 'DOWN'} {v.get('uri') or v.get('url') or v.get('path')}"
        for k, v in r.items()))
    return 0 if all(v["healthy"] for v in status.values()) else 1


def run_stats(settings: Settings, args: argparse.Namespace) -> int:
    from appmem.graph.clients import open_graph

    store = open_graph(settings)
    try:
        if args.app:  # a package or a short name, as every command takes it; an app memory lacks is an error
            from appmem.semantic.search import resolve_app

            known = sorted({r["package"] for r in store.read("serve_app_versions", package=None)})
            rows = [row for package in resolve_app(known, args.app) for row in store.stats(package, every=True)]
        else:
            rows = store.stats(None, every=True)  # the operator's view: every version, trusted or not
    finally:
        store.driver.close()
    emit(args, rows, format_stats)
    return 0


def format_stats(rows: list[dict]) -> str:
    cols = ("screens", "states", "elements", "transitions", "stale", "observations", "traces", "tasks")
    lines = [f"{'app':45} {'version (code)':22} " + " ".join(f"{c:>12}" for c in cols)]
    for r in rows:
        version = f"{r['version']} ({r['version_code']})" if r.get("version_code") is not None else str(r["version"])
        claimed = Counter(r.get("claimed") or ())
        lines.append(f"{r['package'][:45]:45} {version[:22]:22} " + " ".join(f"{r[c]:>12}" for c in cols)
                     + (f"  aka {', '.join(r['aliases'])}" if r.get("aliases") else "")
                     + (f"  claimed {', '.join(f'{v} by {n} key(s)' for v, n in sorted(claimed.items()))}"
                        if claimed else ""))
    return "\n".join(lines)
