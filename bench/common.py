"""What every benchmark needs: a private embedded stack (temporary home, free ports) and the shared data."""
from __future__ import annotations

import os
import socket
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from appmem.settings import Settings  # noqa: E402
from appmem.stack import Stack  # noqa: E402

SHARED = Path(__file__).resolve().parents[2] / "shared"
DROIDBOT = SHARED / "datasets" / "droidbot"
DROIDTASK = SHARED / "datasets" / "droidtask"
DROIDTASK_APPS = ("applauncher", "calendar", "camera", "clock", "contacts", "notes")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def private_stack() -> Iterator[Settings]:
    """Settings of a freshly started embedded stack, stopped and deleted afterwards."""
    with tempfile.TemporaryDirectory(prefix="appmem-bench-") as home:
        settings = Settings.from_env({**os.environ, "APPMEM_HOME": home,
                                      "APPMEM_ARCADEDB_BOLT_PORT": str(free_port()),
                                      "APPMEM_ARCADEDB_HTTP_PORT": str(free_port()),
                                      "APPMEM_REDIS_PORT": str(free_port())})
        stack = Stack(settings)
        stack.up()
        try:
            yield settings
        finally:
            stack.down()
