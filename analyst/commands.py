"""CLI for analysts: `appmem export` (GraphML, neo4j-admin CSV, Cypher UNWIND scripts): what every reader reads,
or the whole graph (`--every`)."""
from __future__ import annotations

import argparse
from pathlib import Path

from appmem.output import emit
from appmem.settings import Settings


def register(sub: argparse._SubParsersAction) -> None:
    from appmem.analyst.export import FORMATS

    export = sub.add_parser("export", help="export an app's memory (or all) as GraphML, neo4j-admin CSV or Cypher")
    which = export.add_mutually_exclusive_group(required=True)
    which.add_argument("--app", metavar="PACKAGE", help="one package: its versions, traces, screens, elements, tasks")
    which.add_argument("--all", action="store_true", help="the whole memory")
    export.add_argument("--format", choices=FORMATS, required=True)
    export.add_argument("--out", type=Path, required=True,
                        help="file (graphml, cypher) or folder (csv: a file per label and type, and import.sh)")
    export.add_argument("--every", action="store_true",
                        help="the whole graph, with what no quorum backs and the crowd's bookkeeping (the operator's "
                             "backup); default: what the trust predicate admits, as every reader reads it")
    export.add_argument("--json", action="store_true")
    export.set_defaults(handler=run_export)


def run_export(settings: Settings, args: argparse.Namespace) -> int:
    from appmem.analyst.export import export
    from appmem.analyst.subgraph import read
    from appmem.graph.clients import open_graph

    store = open_graph(settings)
    try:
        sub = read(store, None if args.all else args.app, args.every)
    finally:
        store.driver.close()
    result = export(sub, args.format, args.out)
    emit(args, result, lambda r: f"{r['nodes']} nodes, {r['relationships']} relationships -> "
                                 f"{', '.join(r['files'])}")
    return 0
