"""The explorer over the real adb protocol (app twins), with the real graph and Redis; no Celery here.

Parsing dumps into the ingest model, risky elements, the policy taking again an input
that kept finding new states (ajsha's twin), a crawl that reproduces part of the
recording and nothing outside it, and a job that resumes its trace without counting an
observation twice.
"""
from __future__ import annotations

import adbutils
import pytest

from appmem.device.driver import DeviceDriver
from appmem.formats.ui import Bounds, UIState, View
from appmem.graph.screens import elements_of, screen_of, screen_signature
from appmem.ingest.droidbot import read_recording, recording_trace
from appmem.ingest.pipeline import ingest_trace
from tests.conftest import DROIDBOT
from appmem.workers.devices import DevicePool, DeviceRecord
from appmem.workers.jobspec import JobSpec, trace_id
from appmem.workers.jobs import WorkerClients, run_job
from appmem.workers.candidates import Seen, candidates, leaf_keys
from appmem.workers.policies import GreedyPolicy, NoKnowledge
from appmem.twins.adb_server import TwinServer
from appmem.twins.device import build_fleet
from appmem.formats.uixml import parse_hierarchy, shown_state_id

ACRYLIC = DROIDBOT / "anupam.acrylic"
ADFREE = DROIDBOT / "ch.abertschi.adfree"
AJSHA = DROIDBOT / "org.ligi.ajsha"


@pytest.fixture
def twins():
    fleet = build_fleet([ACRYLIC, ADFREE], 2)
    server = TwinServer(fleet)
    port = server.start()
    yield fleet, server, port
    server.stop()


def test_dumps_parse_to_the_recorded_screens_and_state_ids(twins):
    fleet, _, port = twins
    twin = fleet["twin-0001"]
    device = adbutils.AdbClient("127.0.0.1", port, socket_timeout=5).device("twin-0001")
    app = twin.apps["anupam.acrylic"]
    for state_id, recorded in app.states.items():
        twin.goto(app.package, state_id)
        current = device.app_current()
        state = parse_hierarchy(device.dump_hierarchy(), current.package, current.activity)
        assert screen_signature(state) == screen_signature(recorded)
        assert state.state_id == shown_state_id(recorded)
        version = twin.apps[app.package].version
        assert screen_of(state, app.package, version).id == screen_of(recorded, app.package, version).id


def _view(index, parent, children, cls, **kw):
    return View(index=index, parent=parent, children=children, class_name=cls,
                bounds=kw.pop("bounds", Bounds(0, index * 100, 1080, index * 100 + 90)), **kw)


def test_risky_elements_are_never_candidates(config):
    views = [
        _view(0, -1, [1, 2, 4, 5, 6], "android.widget.FrameLayout", bounds=Bounds(0, 0, 1080, 1920)),
        _view(1, 0, [], "android.widget.Button", text="Factory reset", clickable=True),
        _view(2, 0, [3], "android.widget.LinearLayout", clickable=True),
        _view(3, 2, [], "android.widget.TextView", text="Uninstall app"),
        _view(4, 0, [], "android.widget.Button", text="Information", clickable=True),
        _view(5, 0, [], "android.widget.Button", content_desc="Format SD card", clickable=True),
        _view(6, 0, [], "android.widget.Button", text="Date format", clickable=True),
    ]
    state = UIState(package="p", activity="p.Main", views=views, state_id="s")
    screen = screen_of(state, "p", "1")
    seen = Seen(state, screen, elements_of(state, screen, leaf_keys(state)))
    labels = {seen.state.views[i].text or seen.state.views[i].content_desc
              for i, e in seen.elements.items()
              if any(c.action.element_key == e.key for c in candidates(seen, config.risky_words))}
    # "format sd" is risky as whole words: "Format SD card" is, "Date format" and "Information" are not
    assert labels == {"Information", "Date format"}
    assert candidates(seen, config.risky_words)[-1].action.type.value == "back"


def _screen(n: int) -> Seen:
    """A screen with an "Info" and a "Go" button, made distinct by `n` extra labels."""
    views = [_view(0, -1, [1, 2, *range(3, 3 + n)], "android.widget.FrameLayout", bounds=Bounds(0, 0, 1080, 1920)),
             _view(1, 0, [], "android.widget.Button", resource_id="p:id/info", text="Info", clickable=True),
             _view(2, 0, [], "android.widget.Button", resource_id="p:id/go", text="Go", clickable=True)]
    views += [_view(3 + k, 0, [], "android.widget.TextView", resource_id=f"p:id/label{k}", text=f"{k}")
              for k in range(n)]
    state = UIState(package="p", activity="p.Main", views=views, state_id=f"s{n}")
    screen = screen_of(state, "p", "1")
    return Seen(state, screen, elements_of(state, screen, leaf_keys(state)))


def test_a_kind_of_action_that_never_changed_anything_waits_on_new_screens(config):
    policy = GreedyPolicy("dfs", 0, NoKnowledge())
    for n in range(1, 4):  # "Info" taps first (view order), three screens: each changes nothing
        seen = _screen(n)
        choice = policy.choose(seen, candidates(seen, config.risky_words))
        assert "info" in choice.action.element_key
        policy.record(seen, choice.action, seen)
    seen = _screen(4)  # a new screen: "Go" first now, "Info" still taken once nothing else is left
    options = candidates(seen, config.risky_words)
    choice = policy.choose(seen, options)
    assert "go" in choice.action.element_key
    policy.record(seen, choice.action, _screen(5))
    assert "info" not in policy.choose(seen, options).action.element_key  # BACK and the labels go first
    assert "info" in policy.choose(seen, [o for o in options if "info" in o.action.element_key]).action.element_key


def _job(package, **kw) -> JobSpec:
    return JobSpec(**{"job_id": f"test-{package}", "run_id": "test-run", "package": package, "policy": "frontier",
                      "max_actions": 120, "chunk_steps": 20, "lease_ttl_s": 30.0, "adb_timeout_s": 5.0,
                      "device_wait_s": 10.0, **kw})


def _register(r, port, serials):
    pool = DevicePool(r)
    for serial in serials:
        pool.register(DeviceRecord(serial, "127.0.0.1", port))


def test_crawl_reproduces_part_of_the_recording_and_nothing_outside_it(empty_graph, redis_client, twins, settings):
    _, _, port = twins
    _register(redis_client, port, ["twin-0001"])
    clients = WorkerClients(empty_graph, redis_client, settings.risky_words)
    results = [run_job(clients, _job(p, max_actions=100)) for p in ("anupam.acrylic", "ch.abertschi.adfree")]
    for folder, result in zip((ACRYLIC, ADFREE), results):
        assert result["status"] == "done" and result["actions"] == 100 and result["states"] > 1
        recording = recording_trace(read_recording(folder))
        ingest_trace(empty_graph, recording, chunk_size=200)
        outside = empty_graph.read("explore_screens_outside", trace_id=result["trace_id"],
                                   package=recording.package, reference_id=recording.id)
        assert outside == []
        crawled = empty_graph.read("explore_run_states", trace_ids=[result["trace_id"]])
        assert len({r["screen_id"] for r in crawled if r["package"] == recording.package}) >= 2
    integrity = empty_graph.read("explore_integrity")[0]
    assert integrity["duplicate_nodes"] == 0 and integrity["duplicate_relationships"] == 0


def test_a_job_resumes_its_trace_and_never_counts_an_observation_twice(empty_graph, redis_client, twins, settings):
    _, _, port = twins
    _register(redis_client, port, ["twin-0001", "twin-0002"])
    clients = WorkerClients(empty_graph, redis_client, settings.risky_words)
    # The first execution stops after two chunks (as if its worker died after writing them) ...
    first = run_job(clients, _job("anupam.acrylic", max_actions=40))
    assert first["chunks"] == 2
    redis_client.hset("appmem:job:test-anupam.acrylic", "status", "queued")
    # ... the retry of the same job (same trace id) continues at chunk 2 up to the full budget.
    second = run_job(clients, _job("anupam.acrylic", max_actions=100))
    assert (second["actions"], second["new_actions"], second["chunks"]) == (100, 60, 5)
    counts = empty_graph.read("explore_trace_counts", trace_id=trace_id("test-anupam.acrylic"))[0]
    assert sorted(counts["chunks"]) == [0, 1, 2, 3, 4]
    assert counts["observations"] == 100  # every step observed once: nothing written twice
    # A redelivered message of a finished job is a no-op.
    assert run_job(clients, _job("anupam.acrylic", max_actions=100))["new_actions"] == 60
    assert empty_graph.read("explore_trace_counts", trace_id=trace_id("test-anupam.acrylic"))[0] == counts


def test_an_input_that_found_a_new_state_each_time_is_taken_again(config):
    """ajsha's save dialog, shown after a jump (no previous state): its recorded CANCEL went back to 50
    different editors, and the twin replays them in turn. Once this state has nothing untried left, the
    policy takes CANCEL again as long as every try found a state new to it, and stops taking again an
    input as soon as a try of it led somewhere it had been."""
    fleet = build_fleet([AJSHA], 1)
    server = TwinServer(fleet)
    port = server.start()
    try:
        twin, app = fleet["twin-0001"], fleet["twin-0001"].apps["org.ligi.ajsha"]
        dialog, cancel = max(app.occurrences, key=lambda k: len({o.target for o in app.occurrences[k]}))
        driver = DeviceDriver(adbutils.AdbClient("127.0.0.1", port, socket_timeout=5).device("twin-0001"), "twin-0001")
        policy = GreedyPolicy("dfs", 0, NoKnowledge())
        known: set[str] = set()
        taken: list[tuple[str, str, bool]] = []  # (signature, target, new to the policy)
        for _ in range(30):
            twin.goto(app.package, dialog)  # back on the dialog, as the explorer's walk would be
            seen = _observe(driver, app.package, app.version)
            known.add(seen.state.state_id)
            choice = policy.choose(seen, candidates(seen, config.risky_words))
            driver.perform(choice.action, choice.bounds)
            target = _observe(driver, app.package, app.version)
            policy.record(seen, choice.action, target)
            taken.append((choice.signature, target.state.state_id, target.state.state_id not in known))
            known.add(target.state.state_id)
    finally:
        server.stop()
    cancels = [(target, new) for signature, target, new in taken if signature == cancel]
    assert len(cancels) >= 5 and all(new for _, new in cancels)  # taken again and again: a new editor each time
    for signature in {signature for signature, _, _ in taken}:
        tries = [new for s, _, new in taken if s == signature]
        stale = next((i for i, new in enumerate(tries) if not new), None)
        assert stale is None or stale == len(tries) - 1, signature  # never taken again after a stale try


def _observe(driver: DeviceDriver, package: str, version: str) -> Seen:
    state = driver.observe()
    screen = screen_of(state, package, version)
    return Seen(state, screen, elements_of(state, screen, leaf_keys(state)))
