"""Test fixtures: the real embedded stack (ArcadeDB over Bolt, redis-server), started once per session.

Set NEO4J_URI (+ NEO4J_USER/PASSWORD/DATABASE) to run the same tests against Neo4j 5;
REDIS_URL likewise. Ports are picked free so a developer's own stack is untouched.

Markers are given here, not by hand: a test that reaches a fixture starting the stack (through any chain of
fixtures) is `stack`, every other one `fast`, so `scripts/test --fast` (`-m "not stack"`) runs every test that
needs no server, new ones included. A test that starts servers of its own is marked `stack` in its file.
"""
from __future__ import annotations

import os
import threading
import time
from contextlib import contextmanager
import socket
from pathlib import Path

import pytest

from appmem.graph.clients import open_graph
from appmem.settings import Settings
from appmem.stack import Stack
from appmem.graph.store import GraphStore

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
DROIDBOT = SHARED / "datasets" / "droidbot"
DROIDTASK = SHARED / "datasets" / "droidtask"


# The fixtures that start the stack or hand its address to a subprocess; every fixture that needs a server
# depends on one of them, so a test's fixture closure tells whether it needs one.
STACK_FIXTURES = frozenset({"stack_env", "settings"})


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "stack: needs the test stack's servers (ArcadeDB, Redis, Celery workers); "
                                       "given to every test whose fixtures reach settings or stack_env")
    config.addinivalue_line("markers", "fast: needs no server (every test not marked stack); "
                                       "scripts/test --fast runs these")


def pytest_collection_modifyitems(config, items) -> None:
    items[:] = families_together(items)
    for item in items:
        if item.get_closest_marker("stack") is None and not STACK_FIXTURES.isdisjoint(item.fixturenames):
            item.add_marker(pytest.mark.stack)
        if item.get_closest_marker("stack") is None:
            item.add_marker(pytest.mark.fast)


def shared_data_of(item):
    """The shared data set (tests/shared_data.py) that one of the item's fixtures holds, if any."""
    for defs in item._fixtureinfo.name2fixturedefs.values():
        if data := getattr(defs[-1].func, "shared_data", None):
            return data
    return None


def families_together(items: list) -> list:
    """The test modules whose fixtures hold shared data sets of one family (sets built on one root set), moved
    to where the family's first module was and run bases first, so no other module refills the graph between
    them; every other module keeps its place. Whole modules move, so module fixtures are set up once."""
    modules: dict = {}
    for item in items:
        modules.setdefault(item.path, []).append(item)
    data = {}
    for path, its in modules.items():
        sets = [d for d in map(shared_data_of, its) if d is not None]
        if sets:
            data[path] = max(sets, key=lambda d: len(d.lineage))
    order = list(modules)
    families: dict = {}
    for path in sorted(data, key=lambda p: (len(data[p].lineage), order.index(p))):
        families.setdefault(data[path].lineage[0].name, []).append(path)
    out, placed = [], set()
    for path in order:
        if path not in data:
            out.extend(modules[path])
        elif (root := data[path].lineage[0].name) not in placed:
            placed.add(root)
            out.extend(item for member in families[root] for item in modules[member])
    return out


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
def config(tmp_path_factory) -> Settings:
    """The settings as the environment gives them, with no stack started: for tests that only read them."""
    return Settings.from_env({**os.environ, "APPMEM_HOME": str(tmp_path_factory.mktemp("appmem-config"))})


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
    from appmem.workers.devices import open_redis

    client = open_redis(Stack(settings).redis_url())
    client.flushdb()
    yield client
    client.flushdb()
    client.close()


@pytest.fixture(scope="session")
def shared_graph(store):
    """The session's graph holding one shared data set at a time (tests/shared_data.py)."""
    from tests.shared_data import SharedGraph

    return SharedGraph(store)


@pytest.fixture
def empty_graph(store) -> GraphStore:
    """The store, emptied first: for tests that count what they wrote."""
    while store.write("delete_all")[0]["deleted"]:
        pass
    return store


@contextmanager
def api_on_socket(settings, memory):
    """The API on a real socket: uvicorn in a thread of this process (which owns the vectors). Yields its URL."""
    import uvicorn

    from appmem.api.app import create_app
    from appmem.api.protocol import SERVER_OPTIONS

    port = free_port()
    uv = uvicorn.Server(uvicorn.Config(create_app(settings, memory), host="127.0.0.1", port=port, log_level="warning",
                                       **SERVER_OPTIONS))  # as `appmem serve` runs it
    thread = threading.Thread(target=uv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not uv.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        uv.should_exit = True
        thread.join(timeout=10)
