"""The graph server going away during an ingest: a TransientError wherever the ingest meets it (the schema
first), so the Celery task retries it with backoff and the contribution ends done once the graph answers;
the reason a contribution held dead shows names no server address.

The outage tests stop and start an ArcadeDB server of this module's own (the session's graph is left to the
other modules) while real Celery workers hold the backlog, on the session's Redis. Their retry timing is a
setting (APPMEM_INGEST_RETRY_MAX_DELAY_S, _MAX_AGE_S): the outage lasts, in retries, longer than the six a
count of retries once allowed, so the code path is that of an outage of minutes at the defaults."""
from __future__ import annotations

import io
import json
import socket
import subprocess
import sys
import struct
import tarfile
import threading
import time

import neo4j
import pytest
from celery import Celery

from appmem.errors import TransientError
from appmem.graph.clients import open_graph
from appmem.settings import Settings
from appmem.stack import GRAPH_DATABASE, GRAPH_USER, Stack
from appmem.graph.store import GraphStore
from appmem.ingest.backlog import queue, sender
from appmem.ingest.contributions import INGEST_QUEUE, INGEST_TASK, MAX_DELIVERIES, PREFIX, Contributions
from appmem.keys import KeyStore
from tests.api.test_hostile import shown_run
from tests.graph.test_identity import cypher_rows
from tests.conftest import DROIDBOT, REPO, free_port
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


OLD_RETRIES = 6  # what a contribution was once allowed through an outage: each one here is retried more often
BACKLOG = 50


class PrivateGraph:
    """An ArcadeDB server of the test's own, on its own ports and folder, using the session's Redis; stopped
    (SIGTERM, as `appmem down` does) and started again with its data."""

    def __init__(self, stack_env: dict[str, str], redis_url: str, folder):
        self.env = {**stack_env, "APPMEM_HOME": str(folder), "REDIS_URL": redis_url,
                    "APPMEM_ARCADEDB_BOLT_PORT": str(free_port()), "APPMEM_ARCADEDB_HTTP_PORT": str(free_port()),
                    "APPMEM_ARCADEDB_HEAP_MB": "512"}
        self.stack = Stack(Settings.from_env(self.env))

    def start(self) -> None:
        self.stack.up(timeout=240)

    def stop(self) -> None:
        assert self.stack.graph.stop()
        assert not self.stack.status()["graph"]["healthy"]


@pytest.fixture(scope="module")
def private_graph(settings, stack_env, tmp_path_factory):
    graph = PrivateGraph(stack_env, Stack(settings).redis_url(), tmp_path_factory.mktemp("private-graph"))
    graph.start()
    store = open_graph(graph.stack.settings)
    store.ensure_schema()
    store.driver.close()
    yield graph
    graph.stack.graph.stop()


def backlog_runs(tag: str, count: int) -> list[bytes]:
    """`count` distinct run traces of one step (app a.b, whose dumps show it), as the API parks them."""
    return [json.dumps(shown_run(task=f"{tag} {n}", started=f"2026-01-01T00:{n // 60:02d}:{n % 60:02d}Z")).encode()
            for n in range(count)]


def wait_for(condition, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"waited {seconds} s for {what}"
        time.sleep(0.5)


def field_of(r, ids: list[str], name: str) -> list[str | None]:
    pipe = r.pipeline()
    for cid in ids:
        pipe.hget(PREFIX + cid, name)
    return pipe.execute()


def test_fifty_contributions_queued_while_the_graph_is_down_all_end_done_when_it_is_back(
        private_graph, settings, tmp_path):
    """The graph is stopped, 50 contributions are queued (as the API queues them) and retried by a worker
    through the outage, each more often than the six retries that once failed them; the graph starts again and
    all 50 end done, their bodies gone, their traces in the graph."""
    url = Stack(settings).redis_url()
    r = open_redis(url)
    celery = Celery("outage-test", broker=url, backend=url)
    env = {**private_graph.env, "APPMEM_INGEST_RETRY_MAX_DELAY_S": "2"}  # the default is 600: same code, sooner
    key = KeyStore(r).create("graph-outage-backlog", "contribute")[0]
    board = Contributions(r)
    private_graph.stop()
    started = time.monotonic()
    ids = [queue(board, sender(celery), "run", key.id, body) for body in backlog_runs("outage", BACKLOG)]
    workers = WorkerProcesses(1, [INGEST_QUEUE], tmp_path / "celery", env=env).start()
    try:
        wait_for(lambda: all(int(n or 0) > OLD_RETRIES for n in field_of(r, ids, "retries")), 240,
                 f"every contribution retried more than {OLD_RETRIES} times")
        assert set(field_of(r, ids, "status")) == {"pending"}  # held through the outage, none failed
        assert all(r.exists(PREFIX + cid + ":body") for cid in ids)
        outage_s = time.monotonic() - started
        private_graph.start()
        wait_for(lambda: "pending" not in field_of(r, ids, "status"), 300, "the backlog to be ingested")
        statuses = [board.status(cid) for cid in ids]
    finally:
        workers.stop()
        celery.close()
    store = open_graph(private_graph.stack.settings)
    try:
        traces = store.read("contributor_packages", contributor=key.contributor)
        held = {s["report"]["graph_trace_id"] for s in statuses if s["report"]}
        counted = cypher_rows(store, "MATCH (t:Trace) WHERE t.id IN $ids RETURN count(t) AS n", ids=list(held))[0]["n"]
    finally:
        store.driver.close()
    print(f"graph down {outage_s:.0f} s; {BACKLOG} contributions retried "
          f"{min(int(n) for n in field_of(r, ids, 'retries'))}+ times each")
    assert [s["status"] for s in statuses] == ["done"] * BACKLOG, [s for s in statuses if s["status"] != "done"][:3]
    assert not any(r.exists(PREFIX + cid + ":body") for cid in ids)
    assert len(held) == BACKLOG and counted == BACKLOG and traces == [{"package": "a.b"}]
    r.close()


def appmem_cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "appmem.cli", *args], capture_output=True, text=True, cwd=REPO,
                          env=env, timeout=120)


def test_contributions_past_the_maximum_age_are_held_with_their_bodies_and_queued_again_with_one_command(
        private_graph, settings, tmp_path):
    """With a maximum age shorter than the outage, the retries end and each contribution is held dead with its
    body (listed by `appmem contributions`, out of its key's pending quota); once the graph is back,
    `appmem contributions requeue --all` queues them again and they end done."""
    url = Stack(settings).redis_url()
    r = open_redis(url)
    celery = Celery("outage-test", broker=url, backend=url)
    env = {**private_graph.env, "APPMEM_INGEST_RETRY_MAX_DELAY_S": "1", "APPMEM_INGEST_RETRY_MAX_AGE_S": "5"}
    key = KeyStore(r).create("graph-outage-dead", "contribute")[0]
    board = Contributions(r)
    private_graph.stop()
    ids = [queue(board, sender(celery), "run", key.id, body) for body in backlog_runs("held", 3)]
    workers = WorkerProcesses(1, [INGEST_QUEUE], tmp_path / "celery", env=env).start()
    try:
        wait_for(lambda: set(field_of(r, ids, "status")) == {"dead"}, 240, "the contributions to be held")
        assert all(r.exists(PREFIX + cid + ":body") for cid in ids) and board.pending(key.id) == 0
        listed = json.loads(appmem_cli(env, "contributions", "--json").stdout)
        mine = {row["trace_id"]: row for row in listed if row["contributor"] == key.id}
        assert set(mine) == set(ids) and all(row["status"] == "dead" for row in mine.values())
        reason = mine[ids[0]]["reason"]
        assert "unreachable" in reason and "127.0.0.1" not in reason and private_graph.env[
            "APPMEM_ARCADEDB_BOLT_PORT"] not in reason, reason
        private_graph.start()
        done = appmem_cli(env, "contributions", "requeue", "--all", "--json")
        assert done.returncode == 0, done.stderr
        assert set(ids) <= set(json.loads(done.stdout)["requeued"])
        wait_for(lambda: "pending" not in field_of(r, ids, "status"), 240, "the re-queued contributions")
        statuses = [board.status(cid)["status"] for cid in ids]
    finally:
        workers.stop()
        celery.close()
    assert statuses == ["done"] * 3
    assert not any(row["contributor"] == key.id for row in json.loads(
        appmem_cli(env, "contributions", "--json").stdout))
    r.close()
