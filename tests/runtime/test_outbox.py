"""The outbox (runtime/outbox.py): a flush sends the traces kept for its server, whichever way its URL ends,
and names the servers the others wait for; `appmem contribute --flush` says so, and an unreachable server
is named as such. No stack: the server here is a port nobody listens on."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from runtime.outbox import Outbox
from tests.conftest import REPO, free_port

RUN = {"format": "appmem-run/1", "task": "tap About", "steps": [{"action": "tap"}]}


def test_a_flush_sends_its_servers_traces_and_names_the_others(tmp_path):
    outbox = Outbox(tmp_path)
    outbox.keep("http://memory:8750", RUN, "API answered 503: busy")
    outbox.keep("http://elsewhere:8750/", {**RUN, "task": "tap Help"}, "API answered 403: no scope")
    outbox.keep(None, {**RUN, "task": "tap Home"}, "the local import failed")
    sent = []

    def send(run):
        sent.append(run["task"])
        return f"trace-{len(sent)}"

    results = outbox.flush("http://memory:8750/", send)  # the slash: still the server it was kept for
    assert sent == ["tap About"]
    assert sorted((r["status"], r.get("server") or "") for r in results) == [  # "": the local memory
        ("other_server", ""), ("other_server", "http://elsewhere:8750"), ("sent", "")]
    assert len(outbox.pending()) == 2  # the others stay for their own servers
    assert [r["status"] for r in outbox.flush(None, send)].count("sent") == 1 and sent[-1] == "tap Home"


def contribute(home, *argv: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "APPMEM_HOME": str(home)}
    env.pop("APPMEM_SERVER", None)
    return subprocess.run([sys.executable, "-m", "appmem.cli", "contribute", "--flush", *argv], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=60)


def test_contribute_says_which_servers_the_kept_traces_wait_for(tmp_path):
    Outbox(tmp_path).keep("http://elsewhere:8750", RUN, "API answered 503: busy")
    server = f"http://127.0.0.1:{free_port()}"
    done = contribute(tmp_path, "--server", server, "--key", "k", "--json")
    assert done.returncode == 0, done.stderr  # nothing failed: nothing here was for this server
    summary = json.loads(done.stdout)
    assert (summary["sent"], summary["kept"], summary["traces"]) == (0, 0, [])
    assert (summary["other_servers"], summary["other_server_urls"]) == (1, ["http://elsewhere:8750"])
    human = contribute(tmp_path, "--server", server, "--key", "k")
    assert human.stdout.splitlines() == ["sent 0, kept 0", "1 trace(s) wait for another server, left in the outbox: "
                                         "http://elsewhere:8750 (flush them with --server URL)"]


def test_a_trace_for_an_unreachable_server_is_kept_with_the_reason(tmp_path):
    server = f"http://127.0.0.1:{free_port()}"  # nobody listens there
    Outbox(tmp_path).keep(server, RUN, "API answered 503: busy")
    done = contribute(tmp_path, "--server", server + "/", "--key", "k", "--json")
    assert done.returncode == 1, done.stderr
    summary = json.loads(done.stdout)
    assert (summary["sent"], summary["kept"], summary["other_servers"]) == (0, 1, 0)
    assert summary["traces"][0]["error"].startswith(f"API unreachable at {server}: ConnectError"), summary
    kept = json.loads(Outbox(tmp_path).pending()[0].read_text())
    assert kept["attempts"] == 2 and kept["last_error"] == summary["traces"][0]["error"]
