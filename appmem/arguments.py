"""The CLI's argument types, shared by every package's `commands` module.

A value out of range fails while the arguments are parsed, so the user reads one line naming the
option and what it takes (argparse prefixes "argument --k:"), never a traceback or a server's 422
from deep inside a command. Below every `commands` module, like appmem.output."""
from __future__ import annotations

import argparse
from typing import Callable

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def at_least(low: int) -> Callable[[str], int]:
    """A whole number of at least `low`: 1 for counts (steps, results, processes), 0 where 0 means something
    (no limit, the default)."""
    def whole(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least {low}")
        return value
    whole.__name__ = f"at_least_{low}"
    return whole


count = at_least(1)


def bounded_text(limit: int) -> Callable[[str], str]:
    """A text of 1 to `limit` characters, as the API's request models take it (a task, an app's name)."""
    def text(value: str) -> str:
        if not value or len(value) > limit:
            shown = repr(value) if len(value) <= 40 else repr(value[:40]) + "…"
            raise argparse.ArgumentTypeError(f"{shown} is not a text of 1 to {limit} characters ({len(value)})")
        return value
    text.__name__ = f"text_of_1_to_{limit}"
    return text


# contract/requests.py's TASK_MAX and APP_MAX, written out: importing the contract would load pydantic on
# every CLI start (tests/appmem/test_arguments.py checks they agree)
task_text = bounded_text(2000)
app_name = bounded_text(300)


def seconds(text: str) -> float:
    """A time budget in seconds, above 0."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0:  # NaN too
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds above 0")
    return value


def port(text: str) -> int:
    """A TCP port to listen on or reach: 1 to 65535 (uvicorn would bind another port for 70000)."""
    if not text.isdigit() or not 1 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (1 to 65535)")
    return int(text)


def port_or_free(text: str) -> int:
    """A port to listen on, or 0: a free one the system picks."""
    if text.strip() == "0":
        return 0
    try:
        return port(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (1 to 65535, or 0: a free one)") from None


def log_level(text: str) -> str:
    """A logging level's name, in any case."""
    if text.upper() not in LOG_LEVELS:
        raise argparse.ArgumentTypeError(f"{text!r} is not a log level ({', '.join(LOG_LEVELS)})")
    return text.upper()


def names(text: str) -> str:
    """A comma-separated list of names (Celery queues): none empty, none with spaces; the list comma-joined."""
    parts = [part.strip() for part in text.split(",")]
    if not all(parts) or any(" " in part for part in parts):
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of names (no empty one)")
    return ",".join(parts)
