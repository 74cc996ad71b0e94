"""CLI: `appmem migrate` — bring a graph written by an earlier appmem up to the current model."""
from __future__ import annotations

import argparse

from appmem.output import emit
from appmem.settings import Settings


def register(sub: argparse._SubParsersAction) -> None:
    migrate = sub.add_parser("migrate", help="migrate an existing graph to the current model (idempotent)")
    migrate.add_argument("--json", action="store_true")
    migrate.set_defaults(handler=run_migrate)


def run_migrate(settings: Settings, args: argparse.Namespace) -> int:
    """Migrate the graph, then move every app's generation: serving processes drop the app graphs, indexes
    and plans they loaded from the graph as it was (what was trusted before may be held out now)."""
    from appmem import generations
    from appmem.graph.clients import open_graph
    from appmem.graph.migrate import migrate

    store = open_graph(settings)
    try:
        report = migrate(store, settings.trust_quorum)
        packages = [r["package"] for r in store.read("all_packages")]
    finally:
        store.driver.close()
    generations.bump_from(settings, packages)
    report["served"] = {"apps_retired": len(packages)}
    emit(args, report, _lines)
    return 0


def _lines(report: dict) -> str:
    lines = [f"{step}: " + (", ".join(f"{k} {v}" for k, v in counts.items()) or "nothing to do")
             for step, counts in report.items()]
    if report["screens"]["old_ids"]:
        lines.append(f"{report['screens']['old_ids']} screens have ids of an older appmem (with their app version): "
                     "they cannot be converted in place; re-import their traces into a fresh graph "
                     "(appmem ingest, appmem crawl)")
    if report["states"]["without_texts"]:
        lines.append(f"{report['states']['without_texts']} states were written before states kept the texts they "
                     "showed: screenshots are located on their screens' element texts and titles alone; ingest their "
                     "traces again to add them (appmem ingest: nothing already written is counted twice)")
    return "\n".join(lines)
