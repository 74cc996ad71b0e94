"""The graph server going away during an ingest: a TransientError wherever the ingest meets it (the schema
first), so the Celery task retries it with backoff and the contribution ends done once the graph answers;
the reason a contribution that fails for good shows names no server address."""
from __future__ import annotations

import io
import socket
import struct
import tarfile
import threading
import time

import neo4j
import pytest
from celery import Celery

from appmem.errors import TransientError
from appmem.stack import GRAPH_DATABASE, GRAPH_USER, Stack
from appmem.graph.store import GraphStore
from appmem.ingest.contributions import INGEST_QUEUE, INGEST_TASK, MAX_DELIVERIES, PREFIX, Contributions
from appmem.keys import KeyStore
from tests.conftest import DROIDBOT, free_port
from appmem.workers.crawl import WorkerProcesses
from appmem.workers.devices import open_redis
from appmem.workers.tasks import failure_reason


def test_a_graph_that_is_down_fails_the_schema_with_a_transient_error_whose_reason_names_no_address():
    port = free_port()  # nothing listens: a killed server
    store = GraphStore(neo4j.GraphDatabase.driver(f"bolt://127.0.0.1:{port}", auth=("root", "x")), "appmem")
    try:
        with pytest.raises(TransientError) as caught:
            store.ensure_schema()
    finally:
        store.driver.close()
    reason = failure_reason(caught.value)
    assert str(port) in str(caught.value)  # the worker's log keeps the detail
    assert "unreachable" in reason and "127.0.0.1" not in reason and str(port) not in reason


class FlakyGraph:
    """A TCP proxy to the graph server that resets the first `resets` connections (the server was killed),
    then forwards every later one (it is back)."""

    def __init__(self, upstream: int, resets: int):
        self.upstream, self.resets = upstream, resets
        self.refused = 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            if self.refused < self.resets:
                self.refused += 1
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # RST, not FIN
                conn.close()
                continue
            server = socket.create_connection(("127.0.0.1", self.upstream))
            for a, b in ((conn, server), (server, conn)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        self.listener.close()


def droidbot_tarball(folder) -> bytes:
    """A DroidBot recording as a contributor sends it, without its screenshots."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.suffix not in (".png", ".jpg"):
                tar.add(path, arcname=str(path.relative_to(folder)))
    return buffer.getvalue()


def test_a_contribution_whose_ingest_loses_the_graph_is_retried_and_ends_done(
        settings, store, stack_env, tmp_path):
    """More retries than a contribution may have deliveries: the task's retries are no deliveries."""
    proxy = FlakyGraph(settings.arcadedb_bolt_port, resets=MAX_DELIVERIES + 1)
    env = {**stack_env, "NEO4J_URI": f"bolt://127.0.0.1:{proxy.port}", "NEO4J_USER": GRAPH_USER,
           "NEO4J_PASSWORD": Stack(settings).graph_password(), "NEO4J_DATABASE": GRAPH_DATABASE}
    r = open_redis(Stack(settings).redis_url())
    workers = WorkerProcesses(1, [INGEST_QUEUE], tmp_path / "celery", env=env).start()
    try:
        key = KeyStore(r).create("graph-outage", "contribute")[0]
        board = Contributions(r)
        cid = board.create("droidbot", key.id, droidbot_tarball(DROIDBOT / "anupam.acrylic"))
        url = Stack(settings).redis_url()
        Celery("graph-outage-test", broker=url, backend=url).send_task(INGEST_TASK, args=[cid], queue=INGEST_QUEUE)
        deadline = time.monotonic() + 240
        while board.status(cid)["status"] == "pending" and time.monotonic() < deadline:
            time.sleep(0.5)
        status = board.status(cid)
        deliveries, retries = r.hmget(PREFIX + cid, "deliveries", "retries")
    finally:
        workers.stop()
        proxy.close()
        r.close()
    assert proxy.refused == MAX_DELIVERIES + 1
    assert status["status"] == "done", status
    # every attempt is a delivery the reaper can tell lost (workers/ingest_owner.py); only the first counts
    # towards MAX_DELIVERIES
    assert int(retries) >= MAX_DELIVERIES and int(deliveries) == int(retries) + 1, (deliveries, retries)
    assert status["report"]["package"] == "anupam.acrylic"
