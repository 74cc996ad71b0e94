"""Test fixtures: the real embedded stack (ArcadeDB over Bolt, redis-server), started once per session.

Set NEO4J_URI (+ NEO4J_USER/PASSWORD/DATABASE) to run the same tests against Neo4j 5;
REDIS_URL likewise. Ports are picked free so a developer's own stack is untouched.
"""
from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from graph.clients import open_graph
from appmem.settings import Settings
from appmem.stack import Stack
from graph.store import GraphStore

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
DROIDBOT = SHARED / "datasets" / "droidbot"
DROIDTASK = SHARED / "datasets" / "droidtask"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def stack_env(tmp_path_factory) -> dict[str, str]:
    """Environment for the test stack; also what CLI subprocesses get."""
    env = dict(os.environ)
    env.update({
        "APPMEM_HOME": str(tmp_path_factory.mktemp("appmem-home")),
        "APPMEM_ARCADEDB_BOLT_PORT": str(free_port()),
        "APPMEM_ARCADEDB_HTTP_PORT": str(free_port()),
        "APPMEM_REDIS_PORT": str(free_port()),
        "APPMEM_ARCADEDB_HEAP_MB": "1024",
    })
    return env


@pytest.fixture(scope="session")
def settings(stack_env) -> Settings:
    settings = Settings.from_env(stack_env)
    stack = Stack(settings)
    stack.up()
    yield settings
    stack.down()


@pytest.fixture(scope="session")
def store(settings) -> GraphStore:
    store = open_graph(settings)
    store.ensure_schema()
    yield store
    store.driver.close()


@pytest.fixture
def redis_client(settings):
    """A client of the test stack's Redis, emptied before and after the test."""
    from workers.devices import open_redis

    client = open_redis(Stack(settings).redis_url())
    client.flushdb()
    yield client
    client.flushdb()
    client.close()


@pytest.fixture
def empty_graph(store) -> GraphStore:
    """The store, emptied first: for tests that count what they wrote."""
    while store.write("delete_all")[0]["deleted"]:
        pass
    return store
