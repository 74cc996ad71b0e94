"""The runtime's outbox: run traces whose contribution was refused or failed, kept under APPMEM_HOME/outbox.

A run is never lost: when sending its trace fails (the server is down, says 5xx,
refuses it, or the local import fails), the trace is written here as one JSON file
`{"server": URL | null, "run": {...}, "attempts": n, "last_error": str}`.
`appmem contribute --flush` and the next `appmem run` send every kept trace again;
a sent trace's file is deleted, a failing one stays with its new error. A trace kept for
another server (or for the local memory) stays too, and the flush says so: a flush that
sends nothing names the servers its traces wait for. An outbox that cannot be written (APPMEM_HOME
read-only, or a file) is a `ConfigError` from `keep`; a flush goes on past a file it cannot delete
or rewrite and says so in that trace's entry (a sent trace left there is sent again). A trace the memory
refused as malformed (400, 413, 422, or a local import's refusal) SET_ASIDE_AFTER times is moved to
`outbox/refused/`: kept for its owner to read, no longer sent by every run (a server or key trouble is
never a reason: 401, 403, 404 (a wrong URL), 429 and 5xx keep it in the outbox).
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Callable

from appmem.errors import AppmemError, ConfigError, InvalidInput

SET_ASIDE_AFTER = 5  # refusals of one trace as malformed before it leaves the outbox for outbox/refused
MALFORMED = (400, 413, 422)  # the memory's answers that sending the same trace again cannot change


def same_server(url: str | None) -> str | None:
    """A server URL as the outbox compares it: `http://h:8750/` and `http://h:8750` are one server (the
    client strips the slash too); None or "" is the local memory."""
    return (url.rstrip("/") or None) if url else None


class Outbox:
    def __init__(self, home: Path):
        self.folder = home / "outbox"

    def keep(self, server: str | None, run: dict[str, Any], error: str, attempts: int = 1,
             refusals: int = 0, folder: Path | None = None) -> Path:
        """Write the trace (atomically: a crash leaves no half file); its name is its content's hash."""
        server = same_server(server)
        body = json.dumps(run, ensure_ascii=False, sort_keys=True)
        folder = folder or self.folder
        path = folder / f"{hashlib.sha256(((server or '') + body).encode()).hexdigest()[:24]}.json"
        tmp = path.with_suffix(".tmp")
        try:
            folder.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps({"server": server, "run": run, "attempts": attempts, "refusals": refusals,
                                       "last_error": error}, ensure_ascii=False), encoding="utf-8")
            os.replace(tmp, path)
        except OSError as exc:
            raise ConfigError(f"the outbox {folder} cannot keep the trace: {exc}") from exc
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
                out.append(self._failed(path, server, kept, exc))
                continue
            entry = {"file": str(path), "status": "sent", "trace_id": trace_id}
            try:
                path.unlink(missing_ok=True)
            except OSError as exc:
                entry["error"] = f"sent, but its file could not be deleted ({exc}): it will be sent again"
            out.append(entry)
        return out

    def _failed(self, path: Path, server: str | None, kept: dict[str, Any], exc: AppmemError) -> dict[str, Any]:
        """A kept trace sent in vain again: kept with the new error, or set aside once refused as malformed
        SET_ASIDE_AFTER times."""
        error, run = str(exc), kept["run"]
        refusals = int(kept.get("refusals") or 0) + malformed(exc)
        aside = refusals >= SET_ASIDE_AFTER
        try:
            moved = self.keep(server, run, error, int(kept.get("attempts") or 0) + 1, refusals,
                              self.folder / "refused" if aside else None)
            if aside:
                path.unlink(missing_ok=True)
        except (ConfigError, OSError) as unkept:  # the file stays as it was
            return {"file": str(path), "status": "kept", "error": f"{error}; {unkept}"}
        if aside:
            return {"file": str(moved), "status": "set_aside", "error": f"{error}; refused {refusals} times: "
                    f"set aside in {moved.parent}, no longer sent"}
        return {"file": str(path), "status": "kept", "error": error}


def malformed(exc: AppmemError) -> bool:
    """The memory refused the trace itself: sending it again cannot change the answer."""
    return isinstance(exc, InvalidInput) or getattr(exc, "status", None) in MALFORMED
