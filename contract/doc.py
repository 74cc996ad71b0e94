"""The contract's tables, rendered from the models: `python -m appmem.contract.doc` prints them.

The docs site renders them into docs/contract.md at build time (tools/docs/hooks.py), and
tests/contract/test_contract.py checks that the committed page holds exactly this text, so the
documented contract is the one the code validates.
"""
from __future__ import annotations

import re
import types
import typing

from pydantic import BaseModel

import appmem.contract as c

BEGIN = "<!-- contract:begin (python -m appmem.contract.doc renders it) -->"
END = "<!-- contract:end -->"
GROUPS = [
    ("Plan: `POST /v1/plan`, MCP `plan`, `appmem plan --json`", [c.PlanRequest, c.CameFrom, c.Avoid, c.Plan, c.PlanStep, c.PlanElement,
                                                                   c.PlanStart, c.Alternative, c.AppChoice]),
    ("Locate: `POST /v1/locate`, MCP `locate`, `appmem locate --json`", [c.LocateRequest, c.LocateAnswer, c.Candidate]),
    ("Hints: `POST /v1/hints`, MCP `hints`, `appmem hints --json` (and `Plan.hints`)",
     [c.HintsRequest, c.HintsAnswer, c.Hint, c.HintTarget]),
    ("Run trace: `POST /v1/traces`, `appmem ingest run`, what the runtime reports",
     [c.RunTrace, c.RunStep, c.RunElement]),
    ("Contribution: `POST /v1/traces`, `POST /v1/corrections`, `GET /v1/traces/{id}`",
     [c.Accepted, c.ContributionStatus, c.CorrectionRequest]),
]


def type_name(annotation: typing.Any) -> str:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        return " \\| ".join(type_name(a) for a in args)
    if origin is typing.Literal:
        return " \\| ".join(f'"{a}"' for a in args)
    if origin in (list, dict):
        return f"{origin.__name__}[{', '.join(type_name(a) for a in args)}]"
    if annotation is type(None):
        return "null"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation.__name__
    return getattr(annotation, "__name__", str(annotation))


def model_table(model: type[BaseModel]) -> str:
    doc = (model.__doc__ or "").strip().splitlines()[0] if model.__doc__ and "Usage docs" not in model.__doc__ else ""
    rows = [f"**{model.__name__}**{f' — {doc}' if doc else ''}", "", "| field | type | required | meaning |",
            "|---|---|---|---|"]
    for name, field in model.model_fields.items():
        meaning = re.sub(r"\s+", " ", field.description or "").replace("|", "\\|")
        rows.append(f"| `{name}` | {type_name(field.annotation)} | {'yes' if field.is_required() else 'no'} "
                    f"| {meaning} |")
    return "\n".join(rows)


def render() -> str:
    parts = [BEGIN]
    for title, models in GROUPS:
        parts.append(f"### {title}")
        parts.extend(model_table(m) for m in models)
    parts.append(END)
    return "\n\n".join(parts) + "\n"


def section(readme: str) -> str:
    """The rendered part of a page's contract section (between the markers), as it stands."""
    start, end = readme.find(BEGIN), readme.find(END)
    return readme[start:end + len(END)] + "\n" if start >= 0 and end > start else ""


if __name__ == "__main__":
    print(render(), end="")
