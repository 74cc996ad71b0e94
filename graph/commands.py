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
    from appmem.graph.clients import open_graph
    from appmem.graph.migrate import migrate

    store = open_graph(settings)
    try:
        report = migrate(store, settings.trust_quorum)
    finally:
        store.driver.close()
    emit(args, report, lambda r: "\n".join(f"{step}: " + (", ".join(f"{k} {v}" for k, v in counts.items()) or "nothing to do")
                                           for step, counts in r.items()))
    return 0
