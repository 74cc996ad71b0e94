"""CLI: `appmem cypher check [FILE...]`, the statements read by Neo4j's own Cypher grammar."""
from __future__ import annotations

import argparse
from pathlib import Path

from appmem.output import emit
from appmem.settings import Settings


def register(sub: argparse._SubParsersAction) -> None:
    cy = sub.add_parser("cypher", help="Cypher statements: check them with Neo4j's grammar")
    cy_sub = cy.add_subparsers(dest="cypher_command", required=True)
    check = cy_sub.add_parser("check", help="parse every statement (default: cypher/*.cypher) as Neo4j 5 does")
    check.add_argument("files", nargs="*", type=Path, metavar="FILE")
    check.add_argument("--warnings", action="store_true", help="also print warnings (deprecations, cross products)")
    check.add_argument("--json", action="store_true")
    check.set_defaults(handler=run_check)


def run_check(settings: Settings, args: argparse.Namespace) -> int:
    from appmem.cypher.check import check

    report = check(args.files or None)

    def human(r: dict) -> str:
        lines = r["errors"] + (r["warnings"] if args.warnings else [])
        lines.append(f"{r['files']} files, {len(r['errors'])} errors, {len(r['warnings'])} warnings; "
                     f"needs Neo4j >= {r['min_neo4j_version']} ({'; '.join(r['min_version_because']) or 'Neo4j 5.0 syntax'})")
        return "\n".join(lines)

    emit(args, report.as_dict(), human)
    return 1 if report.errors else 0
