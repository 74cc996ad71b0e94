"""The shared recordings as named data sets that the stack tests hold in the session's graph: each set is
ingested once and kept for the next module that asks for it, until a test changes the graph.

A module's fixture takes `shared_graph.hold(SET)`: the graph then holds exactly SET. It is refilled only when
it holds something else, which a fingerprint of what it holds (per app: traces, states, screens, elements,
transitions, observations, stale edges, tasks) tells: another set, or this one after a test emptied the graph
or wrote into it. A set built on another (`base`) adds only its own parts when the graph holds the base
untouched. Summaries are not part of a set: a module summarises as before, and `summarize` redoes only the
screens whose hash the graph and the vector folder do not both carry, so a module after another on the same
data and vector folder embeds nothing again.

The fingerprint counts; a test that only changes values on what is there (a run's vote, a task's run count)
goes unseen, so such a module comes last in its family (the ordering below: deepest set last).

A fixture that holds a set says so with `@uses(SET)`: tests/conftest.py then runs the modules of one family of
sets one after another, bases first, so nothing refills the graph between them.
"""
from __future__ import annotations

import shutil
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from appmem.graph.store import GraphStore
from appmem.ingest.autodroid import read_autodroid
from appmem.ingest.droidbot import read_recording, recording_trace
from appmem.ingest.pipeline import ingest_tasks, ingest_trace
from tests.conftest import DROIDBOT, DROIDTASK

CHUNK = 200


def copy_recording(source: Path, folder: Path, package: str, old: str | None = None) -> Path:
    """The recording with its package name (`old`, read from it when not given) replaced in every file,
    copied into `folder`: another app's recording (bench/scale.py builds its memories from such copies;
    never written into the repository)."""
    old = old or read_recording(source).package
    shutil.copytree(source, folder)
    for path in folder.rglob("*"):
        if path.is_file() and path.suffix in (".json", ".js"):
            path.write_text(path.read_text(encoding="utf-8").replace(old, package), encoding="utf-8")
    return folder


@dataclass(frozen=True)
class DroidTaskApp:
    """A DroidTask app's exploration memory; with `demos`, also its gold demonstrations and their tasks."""
    app: str
    demos: bool = False

    def ingest(self, store: GraphStore) -> None:
        imported = read_autodroid(DROIDTASK / self.app, self.app)
        ingest_trace(store, imported.trace, chunk_size=CHUNK)
        if self.demos:
            ingest_trace(store, imported.demo_trace, chunk_size=CHUNK)
            ingest_tasks(store, imported.tasks, imported.demo_trace)


@dataclass(frozen=True)
class Recording:
    """A shared DroidBot recording, under the version it recorded."""
    package: str

    def ingest(self, store: GraphStore) -> None:
        ingest_trace(store, recording_trace(read_recording(DROIDBOT / self.package)), chunk_size=CHUNK)


@dataclass(frozen=True)
class DataSet:
    name: str
    parts: tuple[DroidTaskApp | Recording, ...]
    base: DataSet | None = None

    @property
    def lineage(self) -> list[DataSet]:
        """The sets this one builds on, first the root, last this one."""
        return (self.base.lineage if self.base else []) + [self]


CALENDAR_EXPLORED = DataSet("calendar-explored", (DroidTaskApp("calendar"),))
DROIDTASK_EXPLORED = DataSet("calendar-contacts-explored", (DroidTaskApp("contacts"),), base=CALENDAR_EXPLORED)
DROIDTASK_DEMONSTRATED = DataSet("calendar-contacts-demonstrated",
                                 (DroidTaskApp("calendar", demos=True), DroidTaskApp("contacts", demos=True)))
RECALL = DataSet("droidtask-demonstrated-and-recordings", (
    *(DroidTaskApp(app, demos=True) for app in ("applauncher", "camera", "clock", "notes")),
    *(Recording(p) for p in ("anupam.acrylic", "com.chancehorizon.just24hoursplus", "bluepie.ad_silence")),
), base=DROIDTASK_DEMONSTRATED)
LAUNCHER_RECORDING = DataSet("activitylauncher", (Recording("de.szalkowski.activitylauncher"),))
ANALYST = DataSet("activitylauncher-acrylic", (Recording("anupam.acrylic"),), base=LAUNCHER_RECORDING)
PIXEL_APPS = DataSet("activitylauncher-acrylic-just24", (Recording("com.chancehorizon.just24hoursplus"),), base=ANALYST)


def uses(data: DataSet) -> Callable:
    """Marks a fixture as holding `data`, so that conftest orders the modules that use it (put it under
    `@pytest.fixture`, on the function itself)."""
    def mark(fixture: Callable) -> Callable:
        fixture.shared_data = data
        return fixture
    return mark


class SharedGraph:
    """The session's graph and the data set it holds (see the module docstring)."""

    def __init__(self, store: GraphStore):
        self.store = store
        self.held: DataSet | None = None
        self.fingerprint: list[dict] | None = None

    def hold(self, data: DataSet) -> GraphStore:
        lineage = data.lineage
        intact = self.held in lineage and self.store.stats(every=True) == self.fingerprint
        start = lineage.index(self.held) + 1 if intact else 0
        if not intact:
            while self.store.write("delete_all")[0]["deleted"]:
                pass
        for step in lineage[start:]:
            for part in step.parts:
                part.ingest(self.store)
        self.held, self.fingerprint = data, self.store.stats(every=True)
        return self.store


@contextmanager
def summarized(store: GraphStore, settings, packages: list[str]) -> Iterator[tuple]:
    """(vectors, embedder) of `packages`' memory in `store`, summarised deterministically with the real model;
    the Qdrant client is closed after."""
    from appmem.semantic.embedder import Embedder
    from appmem.semantic.pipeline import summarize
    from appmem.semantic.summaries import DeterministicSummarizer
    from appmem.semantic.vectors import VectorStore, open_qdrant
    client = open_qdrant(settings)
    try:
        embedder = Embedder(settings.home)
        vectors = VectorStore(client, embedder.dim, settings.snapshot_path)
        summarize(store, vectors, embedder, DeterministicSummarizer(settings.risky_words), packages)
        yield vectors, embedder
    finally:
        client.close()
