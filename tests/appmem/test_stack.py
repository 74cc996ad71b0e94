"""The embedded stack's lifecycle: idempotent up, health, clear failures (port taken, dead process)."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys

import pytest

from appmem.errors import StackError
from appmem.settings import Settings
from appmem.stack import Stack, pid_alive
from tests.conftest import free_port

pytestmark = pytest.mark.stack  # every test here starts servers of its own or checks the session stack


def private_settings(tmp_path, **overrides) -> Settings:
    env = {"APPMEM_HOME": str(tmp_path / "home"), "APPMEM_ARCADEDB_BOLT_PORT": str(free_port()),
           "APPMEM_ARCADEDB_HTTP_PORT": str(free_port()), "APPMEM_REDIS_PORT": str(free_port())}
    env.update(overrides)
    return Settings.from_env(env)


def test_session_stack_is_healthy_and_up_is_idempotent(settings, stack_env):
    expected = {name: "running" for name, embedded in (("redis", settings.embedded_redis),
                                                       ("graph", settings.embedded_graph)) if embedded}
    assert Stack(settings).up() == expected
    proc = subprocess.run([sys.executable, "-m", "appmem.cli", "status", "--json"], env=stack_env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert '"healthy": true' in proc.stdout and '"healthy": false' not in proc.stdout
    if settings.embedded_graph:  # a generated password, readable by its owner only
        password = settings.home / "secrets" / "arcadedb_password"
        assert len(password.read_text().strip()) >= 24 and oct(password.stat().st_mode)[-3:] == "600"


def test_a_taken_port_is_named(tmp_path):
    settings = private_settings(tmp_path)
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", settings.redis_port))
        blocker.listen()
        with pytest.raises(StackError, match=f"port {settings.redis_port} is taken"):
            Stack(settings).up()


def test_a_server_that_dies_at_start_shows_its_log(tmp_path):
    settings = private_settings(tmp_path, APPMEM_ARCADEDB_HEAP_MB="1")  # below the JVM's minimum heap
    stack = Stack(settings)
    try:
        with pytest.raises(StackError) as err:
            stack.up(timeout=60)
        assert "arcadedb exited during start-up" in str(err.value)
        assert "heap" in str(err.value).lower()  # the JVM's own complaint, from the log tail
    finally:
        stack.down()


def test_a_killed_service_is_reported_and_restarted(tmp_path):
    settings = private_settings(tmp_path, NEO4J_URI="bolt://127.0.0.1:1", NEO4J_PASSWORD="x")  # redis only
    stack = Stack(settings)
    try:
        assert stack.up() == {"redis": "started"}
        pid = stack.redis.pid()
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        status = stack.status()
        assert status["redis"]["healthy"] is False and status["redis"]["pid"] is None
        assert status["graph"]["embedded"] is False  # configured by URL: never started here
        assert stack.up() == {"redis": "started"} and stack.status()["redis"]["healthy"]
    finally:
        stack.down()
    assert not pid_alive(pid)
