"""`appmem run` when its parts fail before any step: an adb server that accepts but never answers, one that
refuses the connection (no local `adb` is started), no key for --server; and the risky-step prompt on a
terminal. No stack: the memory is a port nobody listens on, and the run ends at the device first."""
from __future__ import annotations

import json
import os
import pty
import socket
import subprocess
import sys
import time

from appmem.device.lock import device_lock
from appmem.runtime.commands import confirmer
from tests.conftest import REPO, free_port


def appmem_run(home, adb_port: int, *argv: str, env: dict[str, str] | None = None,
               serial: str | None = "twin-0001") -> subprocess.CompletedProcess:
    env = {**os.environ, "APPMEM_HOME": str(home), **(env or {})}
    for name in ("APPMEM_SERVER", "APPMEM_KEY"):
        env.pop(name, None)
    return subprocess.run([sys.executable, "-m", "appmem.cli", "run", "--task", "tap 'About'",
                           *(["--serial", serial] if serial else []),
                           "--adb-port", str(adb_port), "--yes", "--json", *argv], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=60)


def test_without_serial_the_run_takes_the_one_device_and_names_them_when_there_are_several(tmp_path):
    """As `adb` without -s: one device listed is the one; several (or none) is a JSON error naming them, before
    anything is asked of a device."""
    from tests.conftest import DROIDBOT
    from appmem.twins.adb_server import TwinServer
    from appmem.twins.device import build_fleet

    memory = ("--server", f"http://127.0.0.1:{free_port()}", "--key", "k")  # nobody listens: the run ends there
    with TwinServer(build_fleet([DROIDBOT / "anupam.acrylic"], 2)) as several:
        done = appmem_run(tmp_path, several.port, *memory, serial=None)
        assert done.returncode == 2 and several.devices["twin-0001"].actions == 0, done.stderr
        result = json.loads(done.stdout)
        assert result["status"] == "failed" and result["steps"] == []
        assert result["reason"].endswith("lists twin-0001, twin-0002: pass --serial"), result
    with TwinServer(build_fleet([DROIDBOT / "anupam.acrylic"], 1)) as one:
        done = appmem_run(tmp_path, one.port, *memory, serial=None)
    result = json.loads(done.stdout)
    assert result["status"] == "failed" and result["reason"].startswith("ApiError: API unreachable"), result


def test_an_adb_server_that_accepts_but_never_answers_fails_the_run_within_the_device_timeout(tmp_path):
    with socket.socket() as mute:  # accepts (the kernel's backlog) and never answers
        mute.bind(("127.0.0.1", 0))
        mute.listen()
        started = time.monotonic()
        done = appmem_run(tmp_path, mute.getsockname()[1], "--server", f"http://127.0.0.1:{free_port()}", "--key", "k",
                          env={"APPMEM_DEVICE_TIMEOUT_S": "2"})
        took = time.monotonic() - started
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "failed" and result["reason"].startswith("DeviceError: device twin-0001"), result
    assert "timeout" in result["reason"] and 2 <= took < 30, (took, result["reason"])
    assert result["contribution"] == "nothing to send: the run took no step"


def test_a_refused_adb_connection_is_a_clear_error_and_starts_no_adb_server(tmp_path):
    started = tmp_path / "adb-was-run"
    adb = tmp_path / "adb"  # what adbutils runs to start a server (`adb start-server`) when a connection is refused
    adb.write_text(f"#!/bin/sh\necho \"$@\" >> {started}\n")
    adb.chmod(0o755)
    done = appmem_run(tmp_path, free_port(), "--server", f"http://127.0.0.1:{free_port()}", "--key", "k",
                      env={"ADBUTILS_ADB_PATH": str(adb)})
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "failed" and "Connection refused" in result["reason"], result
    assert not started.exists(), started.read_text()


def test_a_server_without_a_key_is_a_json_error_with_json(tmp_path):
    done = appmem_run(tmp_path, free_port(), "--server", "http://127.0.0.1:1")
    assert done.returncode == 2, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "failed" and result["reason"].startswith("ConfigError: the server"), result
    assert "--key" in result["reason"] and result["steps"] == []


def test_the_risky_step_prompt_goes_to_stderr_and_leaves_stdout_to_the_result(monkeypatch, capsys):
    leader, follower = pty.openpty()
    with open(follower, "r", closefd=True) as terminal:
        monkeypatch.setattr(sys, "stdin", terminal)
        os.write(leader, b"y\n")
        confirmed = confirmer(False)({"action": "tap", "element": {"label": "Delete all"}})
    os.close(leader)
    out, err = capsys.readouterr()
    assert confirmed and out == ""
    assert err == "risky step: tap 'Delete all'. Go ahead? [y/N] "


def test_a_device_another_run_on_this_host_holds_is_refused_and_released_with_it(tmp_path):
    """Two runs on one device would each read the screen the other changed: the second is refused, naming the
    device, before it asks anything of the device or the memory; once the first is over, the device is free."""
    server = f"http://127.0.0.1:{free_port()}"
    with device_lock(tmp_path, "127.0.0.1", 1234, "twin-0001"):
        busy = appmem_run(tmp_path, 1234, "--server", server, "--key", "k")
        other_device = appmem_run(tmp_path, 1235, "--server", server, "--key", "k")  # another adb server: free
    assert busy.returncode == 2, busy.stderr
    result = json.loads(busy.stdout)
    assert result["status"] == "failed" and "in use by another appmem run" in result["reason"], result
    assert "in use" not in json.loads(other_device.stdout)["reason"]
    after = json.loads(appmem_run(tmp_path, 1234, "--server", server, "--key", "k").stdout)
    assert after["status"] == "failed" and "in use" not in after["reason"], after  # released: on to the device
