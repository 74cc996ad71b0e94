"""The runtime's outbox: run traces whose contribution was refused or failed, kept under APPMEM_HOME/outbox.

A run is never lost: when sending its trace fails (the server is down, says 5xx,
refuses it, or the local import fails), the trace is written here as one JSON file
`{"server": URL | null, "run": {...}, "attempts": n, "last_error": str}`.
`appmem contribute --flush` and the next `appmem run` send every kept trace again;
a sent trace's file is deleted, a failing one stays with its new error. A trace kept for
another server (or for the local memory) stays too, and the flush says so: a flush that
sends nothing names the servers its traces wait for. An outbox that cannot be written (APPMEM_HOME
read-only, or a file) is a `ConfigError` from `keep`; a flush goes on past a file it cannot delete
or rewrite and says so in that trace's entry (a sent trace left there is sent again).
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Callable

from appmem.errors import AppmemError, ConfigError


def same_server(url: str | None) -> str | None:
    """A server URL as the outbox compares it: `http://h:8750/` and `http://h:8750` are one server (the
    client strips the slash too); None or "" is the local memory."""
    return (url.rstrip("/") or None) if url else None


class Outbox:
    def __init__(self, home: Path):
        self.folder = home / "outbox"

    def keep(self, server: str | None, run: dict[str, Any], error: str, attempts: int = 1) -> Path:
        """Write the trace (atomically: a crash leaves no half file); its name is its content's hash."""
        server = same_server(server)
        body = json.dumps(run, ensure_ascii=False, sort_keys=True)
        path = self.folder / f"{hashlib.sha256(((server or '') + body).encode()).hexdigest()[:24]}.json"
        tmp = path.with_suffix(".tmp")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps({"server": server, "run": run, "attempts": attempts, "last_error": error},
                                      ensure_ascii=False), encoding="utf-8")
            os.replace(tmp, path)
        except OSError as exc:
            raise ConfigError(f"the outbox {self.folder} cannot keep the trace: {exc}") from exc
        return path

    def pending(self) -> list[Path]:
        return sorted(self.folder.glob("*.json")) if self.folder.is_dir() else []

    def flush(self, server: str | None, send: Callable[[dict[str, Any]], str]) -> list[dict[str, Any]]:
        """Send every kept trace meant for `server` (None: the local memory) with `send` (returns the
        trace id); one entry per trace: sent with its id, kept with the error, unreadable, or
        `other_server` with the server it waits for (None: the local memory)."""
        server = same_server(server)
        out = []
        for path in self.pending():
            try:
                kept = json.loads(path.read_text(encoding="utf-8"))
                run = kept["run"]
            except (OSError, ValueError, KeyError, TypeError) as exc:
                out.append({"file": str(path), "status": "unreadable", "error": str(exc)})
                continue
            if (meant := same_server(kept.get("server"))) != server:
                out.append({"file": str(path), "status": "other_server", "server": meant})
                continue
            try:
                trace_id = send(run)
            except AppmemError as exc:
                error = str(exc)
                try:
                    self.keep(server, run, error, int(kept.get("attempts") or 0) + 1)
                except ConfigError as unkept:  # the file stays as it was
                    error = f"{error}; {unkept}"
                out.append({"file": str(path), "status": "kept", "error": error})
                continue
            entry = {"file": str(path), "status": "sent", "trace_id": trace_id}
            try:
                path.unlink(missing_ok=True)
            except OSError as exc:
                entry["error"] = f"sent, but its file could not be deleted ({exc}): it will be sent again"
            out.append(entry)
        return out
