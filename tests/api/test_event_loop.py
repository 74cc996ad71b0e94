"""Issue 17 item 6, "no blocking work in the event loop", without a timing: the checks of a contributed body
(the tarball read with its limits, the run trace parsed against its dumps) run where no event loop runs,
a worker thread of the API process, so one large body does not stall every other request."""
from __future__ import annotations

import asyncio

import appmem.api.contrib as contrib


def where_it_runs(real, seen: list[str]):
    """`real`, noting whether an event loop runs in the thread that calls it (it runs unchanged)."""
    def check(*args):  # (body), or (store, body)
        try:
            asyncio.get_running_loop()
            seen.append("event loop")
        except RuntimeError:
            seen.append("worker thread")
        return real(*args)
    return check


def test_contributed_bodies_are_checked_off_the_event_loop(client, bearer, monkeypatch):
    seen: list[str] = []
    monkeypatch.setattr(contrib, "clean_archive", where_it_runs(contrib.clean_archive, seen))
    monkeypatch.setattr(contrib, "_checked_run", where_it_runs(contrib._checked_run, seen))
    headers = bearer("contribute")
    archive = client.post("/v1/traces", content=b"\x1f\x8b not an archive",
                          headers={**headers, "Content-Type": "application/gzip"})
    run = client.post("/v1/traces", content=b'{"format": "appmem-run/1"}',
                      headers={**headers, "Content-Type": "application/json"})
    assert (archive.status_code, run.status_code) == (422, 422)  # both read, both refused with a reason
    assert seen == ["worker thread", "worker thread"]
