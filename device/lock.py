"""One run per device on this host: an exclusive lock per adb server and serial, held while `appmem run` acts.

Two runs on one device each read the screen the other changed and both report success (an outside run
"ended" in one app while the device showed another). The lock is a file under APPMEM_HOME/devices taken
with `flock`, so a run that dies releases it with its process. A home where no lock file can be made
gives no lock: the run goes on (the outbox reports that home's trouble)."""
from __future__ import annotations

import fcntl
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from appmem.errors import DeviceError


@contextmanager
def device_lock(home: Path, host: str, port: int, serial: str) -> Iterator[None]:
    """Hold the device while the block runs; a DeviceError when another process on this host holds it."""
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{host}_{port}_{serial}")[:200]
    try:
        (home / "devices").mkdir(parents=True, exist_ok=True)
        handle = open(home / "devices" / f"{name}.lock", "a")
    except OSError:
        handle = None
    try:
        if handle is not None:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise DeviceError(f"device {serial} ({host}:{port}) is in use by another appmem run on this host"
                                  ) from None
        yield
    finally:
        if handle is not None:
            handle.close()
