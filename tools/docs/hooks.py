"""MkDocs hooks: the parts of the docs that the code already says are rendered from the code at build time.

- `docs/contract.md`: the section between the contract markers is `appmem.contract.doc.render()`, the tables of
  the pydantic models (tests/contract/test_contract.py also holds the committed text equal to it, so the page
  reads right on a code host too);
- `<!-- cli-reference -->`: every subcommand's `--help`, from `appmem.cli.build_parser()`;
- `<!-- settings -->`: `.env.example`, every setting with its comment, as the code reads them;
- `<!-- bench-results: NAME -->`: `bench/results/NAME.md`, the latest figures that `python -m appmem.bench.NAME`
  wrote, or "not yet measured" where it has none (figures are never written by hand).
"""
from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "bench" / "results"
CLI_MARKER = "<!-- cli-reference -->"
SETTINGS_MARKER = "<!-- settings -->"
RESULTS_MARKER = re.compile(r"<!-- bench-results: ([a-z_]+) -->")
WIDTH = "100"  # argparse wraps help to $COLUMNS: fixed, so the page does not depend on the terminal


def contract_section(markdown: str) -> str:
    from appmem.contract.doc import BEGIN, END, render

    start, end = markdown.find(BEGIN), markdown.find(END)
    if start < 0 or end < start:
        raise ValueError(f"docs/contract.md lacks the markers {BEGIN!r} ... {END!r}")
    return markdown[:start] + render().rstrip("\n") + markdown[end + len(END):]


def subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, str, argparse.ArgumentParser]]:
    """(name, one-line help, parser) of every subcommand, depth first (`ingest`, `ingest droidbot`, ...)."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
            for name, sub in action.choices.items():
                found.append((sub.prog.removeprefix("appmem "), helps.get(name, ""), sub))
                found.extend(subcommands(sub))
    return found


def cli_reference() -> str:
    from appmem.cli import build_parser

    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        parser = build_parser()
        parts = ["```text", parser.format_help().rstrip(), "```"]
        for name, summary, sub in subcommands(parser):
            parts += ["", f"## `appmem {name}`", ""]
            if summary:
                parts += [summary[0].upper() + summary[1:] + ("" if summary.endswith(".") else "."), ""]
            parts += ["```text", sub.format_help().rstrip(), "```"]
        return "\n".join(parts)
    finally:
        if previous is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = previous


def bench_names() -> set[str]:
    return {p.stem for p in (REPO / "bench").glob("*.py") if p.stem not in ("__init__", "common")}


def results(match: re.Match) -> str:
    name = match.group(1)
    if name not in bench_names():
        raise ValueError(f"docs name a bench that does not exist: {name!r} (bench/{name}.py)")
    path = RESULTS / f"{name}.md"
    if not path.is_file():
        return (f"!!! note \"Not yet measured\"\n    No results file yet: run `python -m appmem.bench.{name}` "
                f"(it writes `bench/results/{name}.json` and `.md`).\n")
    return path.read_text(encoding="utf-8")


def render_page(markdown: str, src_path: str) -> str:
    """The page's markdown with every generated part filled in."""
    if src_path == "contract.md":
        markdown = contract_section(markdown)
    if CLI_MARKER in markdown:
        markdown = markdown.replace(CLI_MARKER, cli_reference())
    if SETTINGS_MARKER in markdown:
        example = (REPO / ".env.example").read_text(encoding="utf-8").rstrip()
        markdown = markdown.replace(SETTINGS_MARKER, f"```sh\n{example}\n```")
    return RESULTS_MARKER.sub(results, markdown)


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ARG001 (MkDocs' hook signature)
    return render_page(markdown, page.file.src_path)
