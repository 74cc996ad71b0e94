"""The summarize pipeline on the real stack: the shared DroidTask calendar, incremental runs,
crash resume, search, privacy of what lands in the graph and in Qdrant."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import time

import pytest

from appmem import generations
from appmem.errors import InvalidInput, TransientError
from appmem.semantic.search import one_app, resolve_app, search
from appmem.semantic.embedder import Embedder
from appmem.semantic.pipeline import summarize
from appmem.semantic.summaries import DeterministicSummarizer
from appmem.semantic.vectors import VectorStore, open_qdrant

from tests.conftest import REPO
from tests.shared_data import DROIDTASK_DEMONSTRATED, uses

CALENDAR = "com.simplemobiletools.calendar.pro"
EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+")


@pytest.fixture(scope="module")
@uses(DROIDTASK_DEMONSTRATED)
def loaded(shared_graph):
    return shared_graph.hold(DROIDTASK_DEMONSTRATED)


@pytest.fixture(scope="module")
def embedder(settings):
    return Embedder(settings.home, threads=2)


@pytest.fixture
def vectors(settings, embedder, tmp_path):
    client = open_qdrant(type(settings)(**{**settings.__dict__, "home": tmp_path}))
    yield VectorStore(client, embedder.dim)
    client.close()


class Crash(Exception):
    pass


class CrashingSummarizer(DeterministicSummarizer):
    """Fails on its second batch, like a process killed mid-run."""

    def __init__(self):
        super().__init__()
        self.batches = 0

    def summarize(self, contexts):
        self.batches += 1
        if self.batches == 2:
            raise Crash()
        return super().summarize(contexts)


def test_summarize_is_incremental_and_resumes(loaded, vectors, embedder):
    store = loaded
    with pytest.raises(Crash):
        summarize(store, vectors, embedder, CrashingSummarizer(), CALENDAR, batch_screens=8)
    hashed = [r for r in store.read("semantic_screens", packages=[CALENDAR]) if r["summary_hash"]]
    total = len(store.read("semantic_screens", packages=[CALENDAR]))
    assert 0 < len(hashed) < total
    report = summarize(store, vectors, embedder, DeterministicSummarizer(), CALENDAR)
    assert report.screens_done == total - len(hashed) and report.screens_unchanged == len(hashed)
    assert report.tasks == report.tasks_done == 17
    again = summarize(store, vectors, embedder, DeterministicSummarizer(), CALENDAR)
    assert again.screens_done == 0 and again.tasks_done == 0 and again.embedded_texts == 0
    screens = store.read("semantic_screens", packages=[CALENDAR])
    rows = store.elements(screen_ids=[s["id"] for s in screens])
    assert all(r["simulated_task"] for r in rows)


def test_a_short_name_that_designates_several_apps_is_refused_where_one_app_is_read():
    """A plan or a search may span both (resolve_app); a document, a map or a screen's app must be one."""
    packages = ["io.unseen.mutebox", "org.other.mutebox", "org.other.notes.pro"]
    assert resolve_app(packages, "mutebox") == packages[:2] and one_app(packages, "notes") == packages[2]
    with pytest.raises(InvalidInput, match="'mutebox' names 2 apps .io.unseen.mutebox, org.other.mutebox."):
        one_app(packages, "mutebox")
    assert one_app(packages, "io.unseen.mutebox") == "io.unseen.mutebox"


def test_search_finds_delete_all_events(loaded, vectors, embedder):
    summarize(loaded, vectors, embedder, DeterministicSummarizer(), CALENDAR)
    packages = resolve_app([r["package"] for r in loaded.read("semantic_packages")], "calendar")
    assert packages == [CALENDAR]
    hits = search(vectors, embedder, "delete all events", "element", packages, 5)
    assert "delete all events" in hits[0]["simulated_task"].lower() and hits[0]["risky"]
    assert hits[0]["screen_id"] and hits[0]["element_id"]
    assert len({h["element_id"] for h in hits}) == len(hits)
    tasks = search(vectors, embedder, "remove every event", "task", packages, 3)
    assert "delete all the events" in tasks[0]["description"]
    screens = search(vectors, embedder, "settings", "screen", packages, 3)
    assert screens and all(h["package"] == CALENDAR for h in screens)


def test_no_personal_data_in_graph_or_vectors(loaded, vectors, embedder):
    report = summarize(loaded, vectors, embedder, DeterministicSummarizer(), "com.simplemobiletools.contacts.pro")
    assert report.screens > 0
    screens = loaded.read("semantic_screens", packages=None)
    texts = [json.dumps(r) for r in loaded.elements(screen_ids=[s["id"] for s in screens]) + screens]
    texts += [json.dumps(p) for _, p in vectors.points("elements", vectors.packages())]
    blob = "\n".join(texts)
    assert not EMAIL.search(blob), EMAIL.search(blob)
    for number in ("12345678900", "222222", "111111"):
        assert number not in blob


def test_a_summarize_that_fails_midway_publishes_what_it_did(loaded, settings, embedder, tmp_path):
    """A batch fails (the LLM endpoint went away) after others were written: the snapshot readers use says
    of the screens done what the graph says (published before the error goes on), and the caller's report
    counts them."""
    from appmem.semantic.pipeline import SummarizeReport
    from appmem.semantic.snapshots import SnapshotVectors

    class Unreachable(DeterministicSummarizer):
        kind = "unreachable-on-its-second-batch"
        batches = 0

        def summarize(self, contexts):
            self.batches += 1
            if self.batches == 2:
                raise TransientError("LLM endpoint: Connection error.")
            return super().summarize(contexts)

    client = open_qdrant(type(settings)(**{**settings.__dict__, "home": tmp_path}))
    vectors = VectorStore(client, embedder.dim, tmp_path / "snapshots")
    report = SummarizeReport(packages=[])
    try:
        with pytest.raises(TransientError):
            summarize(loaded, vectors, embedder, Unreachable(), CALENDAR, batch_screens=8, report=report)
    finally:
        client.close()
    assert report.screens_done == 8 and report.packages == [CALENDAR]
    graph = {r["id"]: r["summary_hash"] for r in loaded.read("semantic_screens", packages=[CALENDAR])}
    snapshot = SnapshotVectors(tmp_path / "snapshots", embedder.dim).values("screens", "summary_hash", [CALENDAR])
    assert len(snapshot) == 8 and all(graph[k] == v for k, v in snapshot.items())


def test_cli_summarize_that_fails_midway_reports_and_retires_what_it_did(loaded, settings, stack_env):
    """`appmem summarize --llm openai` against a local OpenAI-compatible server that refuses (401, echoing
    the key) every request naming a contacts screen: calendar (summarised first) is done; the apps' plan-cache
    generations moved; --json prints the report naming the error; the error is one line, exit 2, keyless.
    (test_cli_search_json, next, summarises calendar deterministically again.)"""
    import redis

    from appmem.stack import Stack
    from appmem.semantic.pipeline import load_contexts
    from tests.semantic.test_llm import KEY, FakeLLM

    contacts, _ = load_contexts(loaded, ["com.simplemobiletools.contacts.pro"])
    calendar, _ = load_contexts(loaded, [CALENDAR])
    fake = FakeLLM()
    fake.refuse = {c.id for c in contacts}
    r = redis.Redis.from_url(Stack(settings).redis_url(), decode_responses=True)
    before = int(r.get(generations.PREFIX + CALENDAR) or 0)
    env = {**stack_env, "APPMEM_LLM_BASE_URL": fake.url, "APPMEM_LLM_API_KEY": KEY,
           "APPMEM_LLM_MODEL": f"fake-{time.time_ns()}"}  # a model of its own: nothing in the LLM cache
    try:
        run = subprocess.run([sys.executable, "-m", "appmem.cli", "summarize", "--llm", "openai", "--json",
                              "--no-ranker"], cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    finally:
        fake.httpd.shutdown()
    assert int(r.get(generations.PREFIX + CALENDAR) or 0) > before
    r.close()
    assert run.returncode == 2, run.stderr
    error = run.stderr.strip().splitlines()[-1]
    assert error.startswith("appmem: error: LLM endpoint") and "401" in error and "[API key]" in error
    assert KEY not in run.stderr + run.stdout
    report = json.loads(run.stdout)
    assert report["error"].startswith("ConfigError: ") and report["screens_done"] == len(calendar)


def test_llm_text_reaches_the_terminal_without_control_characters(loaded, settings, stack_env):
    """A model whose summaries carry terminal escapes (colour, clear screen, a window title): they are stored
    as the summarizer keeps them, but `appmem search` and `appmem doc --format markdown` print them without any
    control character (C0 but newline and tab, C1: the clear screen \x9b2J, a carriage return)."""
    from tests.semantic.test_llm import FakeLLM

    fake = FakeLLM()
    fake.decorate = ("\x1b[31m\x9b2J\x1b]0;pwned\x07", "\x1b[0m\r")
    env = {**stack_env, "APPMEM_LLM_BASE_URL": fake.url, "APPMEM_LLM_MODEL": f"fake-{time.time_ns()}"}
    try:
        run = subprocess.run([sys.executable, "-m", "appmem.cli", "summarize", "--app", "calendar", "--llm",
                              "openai", "--no-ranker"], cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    finally:
        fake.httpd.shutdown()
    assert run.returncode == 0, run.stderr
    for args in (["search", "delete all events", "--app", "calendar"], ["doc", "--app", "calendar"]):
        shown = subprocess.run([sys.executable, "-m", "appmem.cli", *args], cwd=REPO, env=env, capture_output=True,
                               text=True, timeout=120)
        assert shown.returncode == 0, shown.stderr
        assert "LLM" in shown.stdout and "\x1b]0;pwned" not in shown.stdout
        assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", shown.stdout), args


def test_cli_search_json(loaded, settings, stack_env, embedder):
    env = {**stack_env}
    run = subprocess.run([sys.executable, "-m", "appmem.cli", "summarize", "--app", "calendar", "--json"],
                         cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "summarize screens" in run.stderr
    run = subprocess.run([sys.executable, "-m", "appmem.cli", "search", "delete all events", "--app", "calendar",
                          "--json"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    hits = json.loads(run.stdout)
    assert "delete all events" in hits[0]["simulated_task"].lower()
    bad = subprocess.run([sys.executable, "-m", "appmem.cli", "search", "x", "--app", "nosuchapp"], cwd=REPO,
                         env=env, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "no app in the graph matches" in bad.stderr


def test_apps_summarised_in_parallel_processes_write_what_one_process_writes(loaded, embedder, settings, tmp_path):
    """Two apps in a pool of two processes, then the same apps in this process into another vector folder:
    the same points (ids, payloads, vectors) and the same graph rows; the report counts both processes' work."""
    apps = [CALENDAR, "com.simplemobiletools.contacts.pro"]
    points, rows = {}, {}
    for processes in (2, 1):
        client = open_qdrant(type(settings)(**{**settings.__dict__, "home": tmp_path / str(processes)}))
        vectors = VectorStore(client, embedder.dim)
        try:
            report = summarize(loaded, vectors, embedder, DeterministicSummarizer(), apps, processes=processes)
            points[processes] = {p["object_id"]: (p, v) for v, p in vectors.points("elements", apps)}
        finally:
            client.close()
        screens = loaded.read("semantic_screens", packages=apps)
        rows[processes] = sorted(json.dumps(r, sort_keys=True) for r in screens + loaded.elements(
            screen_ids=[s["id"] for s in screens]))
        assert report.processes == processes and report.screens_done == report.screens > 0
        assert report.elements_done > 0 and report.embedded_texts > 0 and not report.errors
        assert all(report.phase_seconds[p] > 0 for p in ("contexts", "summaries", "vector_writes", "graph_writes"))
    assert rows[1] == rows[2]
    assert points[1].keys() == points[2].keys() and len(points[1]) > 100
    for key, (payload, vector) in points[2].items():
        assert payload == points[1][key][0] and vector == pytest.approx(points[1][key][1], abs=1e-5)
