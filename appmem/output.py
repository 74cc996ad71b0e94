"""What a CLI command prints: JSON with `--json` (scripts read it), else a human form.

Below every package's `commands` module, so they import it without importing the CLI that loads them."""
from __future__ import annotations

import argparse
import json
from typing import Any, Callable


def emit(args: argparse.Namespace, payload: Any, human: Callable[[Any], str] | None = None) -> None:
    """Print a result: JSON with --json (or when no human form is given), else the human form."""
    if getattr(args, "json", False) or human is None:
        print(json.dumps(payload, indent=2, sort_keys=True, default=str))
    else:
        print(human(payload))
