"""What a CLI command prints: JSON with `--json` (scripts read it), else a human form.

Below every package's `commands` module, so they import it without importing the CLI that loads them.
Human output carries text others wrote (an LLM's summaries, a recording's labels, a contributor's
task): `show` prints it without control characters, so none of it can drive the terminal (colours,
cursor moves, a rewritten title, a hidden line). JSON needs no such care: `json.dumps` escapes them."""
from __future__ import annotations

import argparse
import json
import re
from typing import Any, Callable

# ESC sequences whole (CSI, OSC up to its terminator, two-byte ones; C1's CSI \x9b too), then any other
# C0 or C1 control character but newline and tab, DEL included.
CONTROLS = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]?|\x9b[0-?]*[ -/]*[@-~]?|\x1b\][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
                      r"|\x1b[ -~]?|[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean(text: str) -> str:
    """`text` without terminal control: escape sequences and control characters but newline and tab."""
    return CONTROLS.sub("", text)


def show(text: str) -> None:
    """Print human output (text others wrote among it) with no terminal control in it."""
    print(clean(text))


_emitted = False  # whether this process printed a result: the CLI then prints an error after it on stderr only


def emitted() -> bool:
    """Whether `emit` printed a result (a report a command gives before it fails, as `summarize` does)."""
    return _emitted


def emit(args: argparse.Namespace, payload: Any, human: Callable[[Any], str] | None = None) -> None:
    """Print a result: JSON with --json (or when no human form is given), else the human form."""
    global _emitted
    _emitted = True
    if getattr(args, "json", False) or human is None:
        print(json.dumps(payload, indent=2, sort_keys=True, default=str))
    else:
        show(human(payload))
