"""The `appmem` command line: one entry point, a subcommand per job, `--json` where scripts read the output.

Each package registers its own subcommands (a `register(subparsers)` function in
its `commands` module); this module builds the Settings once and dispatches.
"""
from __future__ import annotations

import argparse
import json
import logging
import sys

from appmem import tracing
from appmem.errors import AppmemError
from appmem.output import clean, emitted
from appmem.settings import Settings

COMMAND_MODULES = ("appmem.commands", "appmem.ingest.commands", "appmem.workers.commands", "appmem.semantic.commands",
                   "appmem.agent.commands", "appmem.graph.commands", "appmem.cypher.commands",
                   "appmem.analyst.commands", "appmem.api.commands", "appmem.runtime.commands")
# The production image leaves the app twins out (.dockerignore): their commands register when present.
OPTIONAL_COMMAND_MODULES = ("appmem.twins.commands",)


class Parser(argparse.ArgumentParser):
    """A bad argument is one line, like every other error of the CLI, exit 2: argparse's usage block above it
    would bury what is wrong. Subcommands' parsers are of this class too (add_subparsers passes it on)."""

    def error(self, message: str):
        self.exit(2, f"appmem: error: {message}; see {self.prog} --help\n")


def build_parser() -> argparse.ArgumentParser:
    import importlib
    import importlib.util

    parser = Parser(prog="appmem", description=__doc__.splitlines()[0])
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    for name in OPTIONAL_COMMAND_MODULES:
        if importlib.util.find_spec(name.rpartition(".")[0]) is not None:
            importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    settings = Settings.from_env()
    try:
        tracing.configure(settings.tracing)
        return int(args.handler(settings, args) or 0)
    except AppmemError as exc:
        print(f"appmem: error: {clean(str(exc))}", file=sys.stderr)  # it may quote a server's reply
        if getattr(args, "json", False) and not emitted():  # a script reads stdout: the error there, not nothing
            print(json.dumps({"error": type(exc).__name__, "detail": str(exc)}))  # (one document: not after a report)
        return 2
    except KeyboardInterrupt:
        print("appmem: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
