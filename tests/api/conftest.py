"""Fixtures of the API tests: Calendar's exploration memory behind one `Service`, the app in a test client,
keys, two app twins (acrylic, adfree) and the API on a real socket (uvicorn in a thread of this process, which
owns the vectors). Module-scoped: a module that opens its own `Service` must find the local vector folder free."""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import pytest
from fastapi.testclient import TestClient

from appmem.agent.service import Service
from appmem.api.app import create_app
from appmem.keys import KeyStore
from appmem import generations
from appmem.stack import Stack
from appmem.semantic.pipeline import summarize
from appmem.semantic.summaries import DeterministicSummarizer
from tests.conftest import DROIDBOT, api_on_socket
from tests.shared_data import CALENDAR_EXPLORED, uses
from appmem.twins.adb_server import TwinServer
from appmem.twins.device import build_fleet
from appmem.workers.crawl import WorkerProcesses
from appmem.workers.devices import open_redis

CALENDAR = "com.simplemobiletools.calendar.pro"
ACRYLIC = "anupam.acrylic"
ADFREE = "ch.abertschi.adfree"


@pytest.fixture(scope="module")
@uses(CALENDAR_EXPLORED)
def memory(shared_graph, settings):
    """Calendar's exploration memory (no gold demonstration), summarised and embedded; no vector of another
    app is left (an earlier module's apps would take part in app choice without their graphs)."""
    store = shared_graph.hold(CALENDAR_EXPLORED)
    service = Service.open(settings)
    service.vectors.delete_packages([p for p in service.vectors.packages() if p != CALENDAR])
    summarize(store, service.vectors, service.embedder, DeterministicSummarizer(settings.risky_words), [CALENDAR])
    generations.bump_from(settings, [CALENDAR])  # as every writer does: no plan cached before is served
    yield service
    service.close()


@pytest.fixture(scope="module")
def keys(settings):
    return KeyStore(open_redis(Stack(settings).redis_url()))


@pytest.fixture(scope="module")
def twins():
    """Two app twins (acrylic, adfree) behind one adb server: (fleet, server)."""
    fleet = build_fleet([DROIDBOT / ACRYLIC, DROIDBOT / ADFREE], 2)
    with TwinServer(fleet) as server:
        yield fleet, server


@pytest.fixture
def bearer(keys):
    def make(scopes="plan", rate=0):
        _, secret = keys.create("test", scopes, rate)
        return {"Authorization": f"Bearer {secret}"}
    return make


@pytest.fixture(scope="module")
def client(settings, memory):
    with TestClient(create_app(settings, memory), raise_server_exceptions=False) as client:
        yield client


@pytest.fixture(scope="module")
def served(settings, memory, keys):
    """(base URL, a plan-scoped key) of the API on a real socket."""
    with api_on_socket(settings, memory) as url:
        _, key = keys.create("served", "plan")
        yield url, key


def tarball(members: dict[str, bytes]) -> bytes:
    """A gzipped tar archive of these members (name -> bytes)."""
    import io
    import tarfile

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def recorded_app_memory(store, settings, package: str, also: tuple[str, ...] = (), as_device: bool = True) -> Service:
    """A memory of one twin app's DroidBot recording alone (imported under the twin's version, as its device
    reports it; `as_device` False: under the APK's sha256, as `appmem ingest droidbot` does), summarised with
    `also` (packages the recording reached); no vector of another app is left (other modules' apps would
    take part in app choice). The caller closes it."""
    from appmem.ingest.droidbot import read_recording, recording_trace
    from appmem.ingest.pipeline import ingest_trace
    from appmem.twins.app import TwinApp

    while store.write("delete_all")[0]["deleted"]:
        pass
    version = TwinApp.from_droidbot(DROIDBOT / package).version if as_device else None
    ingest_trace(store, recording_trace(read_recording(DROIDBOT / package), app_version=version), 200)
    memory = Service.open(settings)
    memory.vectors.delete_packages([p for p in memory.vectors.packages() if p not in (package, *also)])
    summarize(store, memory.vectors, memory.embedder, DeterministicSummarizer(settings.risky_words), [package, *also])
    return memory


@contextmanager
def held_memory(store, settings, package: str, **options) -> Iterator[Service]:
    """recorded_app_memory(...) for a `with` block, closed at its end."""
    memory = recorded_app_memory(store, settings, package, **options)
    try:
        yield memory
    finally:
        memory.close()


@contextmanager
def api_with_ingest_worker(settings, memory: Service, stack_env, folder) -> Iterator[str]:
    """The API on a real socket (uvicorn in a thread of this process, which owns the vectors) and one
    Celery ingest worker process: the API's URL."""
    with api_on_socket(settings, memory) as url:
        workers = WorkerProcesses(1, ["ingest"], folder, env=stack_env).start()
        try:
            yield url
        finally:
            workers.stop()


@pytest.fixture(scope="module")
def acrylic_memory(store, settings):
    """Acrylic Paint's DroidBot recording alone as the memory (the crowd, tenant and pixel-run modules)."""
    with held_memory(store, settings, ACRYLIC) as memory:
        yield memory


@pytest.fixture(scope="module")
def acrylic_server(settings, acrylic_memory, stack_env, tmp_path_factory):
    """The API over `acrylic_memory` on a socket, with one Celery ingest worker process: its URL."""
    with api_with_ingest_worker(settings, acrylic_memory, stack_env, tmp_path_factory.mktemp("celery")) as url:
        yield url
