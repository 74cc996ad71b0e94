"""The outbox (runtime/outbox.py): a flush sends the traces kept for its server, whichever way its URL ends,
and names the servers the others wait for; `appmem contribute --flush` says so, and an unreachable server
is named as such; an outbox that cannot be written is an error, never a traceback. No stack: the server here is a port nobody listens on."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from contextlib import contextmanager

import pytest

from appmem.errors import ConfigError
from appmem.runtime.outbox import Outbox
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


def test_an_outbox_that_cannot_be_written_is_a_config_error(tmp_path):
    home = tmp_path / "home"
    home.write_text("a file, not a folder")
    with pytest.raises(ConfigError, match=f"the outbox {home / 'outbox'} cannot keep the trace"):
        Outbox(home).keep(None, RUN, "API answered 403: no scope")
    assert Outbox(home).flush(None, lambda run: "never called") == []


@contextmanager
def frozen(folder):
    """`folder` where nothing can be created, replaced or deleted, root included (chattr +i)."""
    if subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode:
        pytest.skip("chattr +i is not supported here")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(folder)], check=True)


def test_a_flush_goes_on_past_files_it_cannot_delete_or_rewrite(tmp_path):
    outbox = Outbox(tmp_path)
    outbox.keep("http://memory:8750", RUN, "API answered 503: busy")
    with frozen(outbox.folder):
        sent = outbox.flush("http://memory:8750", lambda run: "trace-1")
        assert [(r["status"], r["trace_id"]) for r in sent] == [("sent", "trace-1")]
        assert sent[0]["error"].startswith("sent, but its file could not be deleted (") and len(outbox.pending()) == 1
        done = contribute(tmp_path, "--server", "http://memory:8750", "--key", "k", "--json")  # unreachable
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    (kept,) = json.loads(done.stdout)["traces"]
    assert kept["status"] == "kept" and f"the outbox {outbox.folder} cannot keep the trace" in kept["error"], kept
    assert json.loads(outbox.pending()[0].read_text())["attempts"] == 1


def test_a_trace_refused_as_malformed_again_and_again_is_set_aside_not_sent_by_every_run(tmp_path):
    """A trace the memory refuses for what it is (422) is sent again SET_ASIDE_AFTER times, then moved to
    outbox/refused: kept to read, no longer sent. A refusal of the key or the server (403, 503) never counts."""
    from appmem.contract.client import ApiError
    from appmem.runtime.outbox import SET_ASIDE_AFTER

    outbox = Outbox(tmp_path)
    outbox.keep("http://memory:8750", RUN, "API answered 422: memory holds no such app", refusals=1)  # as a run keeps it
    outbox.keep("http://memory:8750", {**RUN, "task": "tap Help"}, "API answered 403: no scope")
    answers = {"tap About": ApiError(422, "memory holds no such app"), "tap Help": ApiError(403, "no scope")}

    def send(run):
        raise answers[run["task"]]

    for flush in range(1, SET_ASIDE_AFTER + 2):
        results = {json.loads(open(r["file"]).read())["run"]["task"]: r for r in outbox.flush("http://memory:8750", send)}
        expected = "set_aside" if flush == SET_ASIDE_AFTER - 1 else "kept"  # kept once refused at the first run
        if flush < SET_ASIDE_AFTER:
            assert results["tap About"]["status"] == expected, (flush, results)
        else:
            assert "tap About" not in results  # set aside: no longer sent
        assert results["tap Help"]["status"] == "kept"  # the key's trouble: sent again by every run
    refused = list((tmp_path / "outbox" / "refused").glob("*.json"))
    assert len(refused) == 1 and json.loads(refused[0].read_text())["run"] == RUN
    assert len(outbox.pending()) == 1
