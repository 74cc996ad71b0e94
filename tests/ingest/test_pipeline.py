"""DroidBot import into the real graph server: counts, idempotence, merging, bad input, hostile text."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from appmem.errors import GraphError, InputFormatError
from appmem.formats.ui import Action, ActionType, Bounds, UIState, View
from appmem.graph.model import Step, Task, TaskStep, Trace
from appmem.graph.screens import screen_of
from appmem.graph.vocabulary import clean_all
from appmem.ingest.droidbot import read_json, read_recording, recording_trace
from appmem.graph.rows import build_rows, chunk_states
from appmem.ingest.pipeline import ingest_tasks, ingest_trace, scrub_trace
from tests.conftest import DROIDBOT

APPS = sorted(p for p in DROIDBOT.iterdir() if p.is_dir())


def utg_nodes(folder) -> int:
    return len(read_json(folder / "utg.js")["nodes"])


def stats_of(store, package):
    rows = store.stats(package)
    assert len(rows) == 1, rows
    return rows[0]


def test_every_shared_app_imports_with_its_recorded_state_count(empty_graph):
    for folder in APPS:
        trace = recording_trace(read_recording(folder))
        report = ingest_trace(empty_graph, trace, chunk_size=100)
        assert report.chunks_written == report.chunks
    for folder in APPS:
        row = stats_of(empty_graph, folder.name)
        assert row["states"] == utg_nodes(folder), folder.name
        assert 0 < row["screens"] <= row["states"]
        assert row["elements"] > 0 and row["transitions"] > 0 and row["traces"] == 1
    # Each screen id is unique, and so is every transition key.
    dup = empty_graph.read("check_duplicates")[0]
    assert dup == {"screens": dup["distinct_screens"], "distinct_screens": dup["distinct_screens"],
                   "transitions": dup["distinct_transitions"], "distinct_transitions": dup["distinct_transitions"],
                   "elements": dup["distinct_elements"], "distinct_elements": dup["distinct_elements"]}


def test_reingest_is_a_noop_and_a_second_device_merges(empty_graph):
    folder = DROIDBOT / "bluepie.ad_silence"
    first = ingest_trace(empty_graph, recording_trace(read_recording(folder)), chunk_size=40)
    before = stats_of(empty_graph, folder.name)
    again = ingest_trace(empty_graph, recording_trace(read_recording(folder)), chunk_size=40)
    assert first.chunks_written == first.chunks and again.already_present
    assert stats_of(empty_graph, folder.name) == before

    other = ingest_trace(empty_graph, recording_trace(read_recording(folder), device="pixel-7"), chunk_size=40)
    assert other.chunks_written == other.chunks
    after = stats_of(empty_graph, folder.name)
    assert after["traces"] == 2
    for same in ("screens", "states", "elements", "transitions"):
        assert after[same] == before[same], same
    assert after["observations"] == 2 * before["observations"]
    devices = empty_graph.read("transition_devices", package=folder.name)
    assert devices and all(sorted(d["devices"]) == ["192.168.1.101:5555", "pixel-7"] for d in devices)


def test_analyst_queries_answer_on_shared_data(empty_graph):
    folder = DROIDBOT / "anupam.acrylic"
    trace = recording_trace(read_recording(folder))
    ingest_trace(empty_graph, trace, chunk_size=100)
    own = {screen_of(s, trace.package, trace.app_version).id for s in trace.states.values()
           if s.package == trace.package}
    screens = empty_graph.read("analyst_app_screens", package="anupam.acrylic")
    assert {s["screen"] for s in screens} == own
    top = screens[0]["screen"]
    hood = empty_graph.read("analyst_neighbourhood", screen_id=top)
    assert {h["direction"] for h in hood} == {"in", "out"}
    out = next(h for h in hood if h["direction"] == "out" and h["other"] != top)
    path = empty_graph.read("analyst_path", source_id=top, target_id=out["other"])
    assert len(path) == 1 and path[0]["step"] == 0


def broken_copy(tmp_path, app="anupam.acrylic"):
    dst = tmp_path / app
    shutil.copytree(DROIDBOT / app, dst)
    return dst


def test_truncated_state_file_names_the_file_and_writes_nothing(empty_graph, tmp_path, stack_env):
    folder = broken_copy(tmp_path)
    victim = sorted((folder / "states").glob("*.json"))[3]
    victim.write_text(victim.read_text()[:500])
    with pytest.raises(InputFormatError) as err:
        read_recording(folder)
    assert victim.name in str(err.value) and "malformed JSON" in str(err.value)
    proc = subprocess.run([sys.executable, "-m", "appmem.cli", "ingest", "droidbot", str(folder)],
                          env=stack_env, capture_output=True, text=True)
    assert proc.returncode != 0 and victim.name in proc.stderr
    assert empty_graph.stats("anupam.acrylic") == []


@pytest.mark.parametrize("breakage, message", [
    ("no_utg", "not a DroidBot output folder"),
    ("unknown_event", "unknown event type 'Teleport'"),
    ("missing_state", "has no states/state_*.json file"),
    ("bad_bounds", "malformed bounds"),
    ("view_cycle", "form a cycle"),
])
def test_malformed_recordings_are_refused_clearly(tmp_path, breakage, message):
    folder = broken_copy(tmp_path)
    utg_path = folder / "utg.js"
    utg = read_json(utg_path)
    if breakage == "no_utg":
        utg_path.unlink()
    elif breakage == "unknown_event":
        utg["edges"][3]["events"][0]["event_str"] = "TeleportEvent(state=abc)"
        utg_path.write_text("var utg = " + json.dumps(utg))
    elif breakage == "missing_state":
        state_file = sorted((folder / "states").glob("*.json"))[-1]
        state_file.unlink()
    else:
        state_file = sorted((folder / "states").glob("*.json"))[0]
        raw = json.loads(state_file.read_text())
        if breakage == "bad_bounds":
            raw["views"][2]["bounds"] = "everywhere"
        else:  # the root and its first child each the other's parent: no view hangs from a root
            first, second = raw["views"][0], raw["views"][1]
            first["parent"], first["children"], second["children"] = 1, [1], [0]
        state_file.write_text(json.dumps(raw))
    with pytest.raises(InputFormatError) as err:
        recording_trace(read_recording(folder))
    assert message in str(err.value)
    assert str(folder) in str(err.value)


HOSTILE = [
    "'}) MATCH (n) DETACH DELETE n //",
    'quote " and \\ backslash \\\' mixed',
    "RETURN 1; DROP CONSTRAINT screen_id",
    "ünïcödé 😀 עברית 中文 \u200b zero-width",
    "x" * 100_000,
]


def hostile_trace() -> Trace:
    def state(sid: str, texts: list[str]) -> UIState:
        root = View(0, -1, list(range(1, len(texts) + 1)), "android.widget.FrameLayout", package="evil.app",
                    bounds=Bounds(0, 0, 1080, 1920))
        kids = [View(i + 1, 0, [], "android.widget.Button", package="evil.app", resource_id=f"evil.app:id/b{chr(97 + i)}",
                     text=t, content_desc=t[:50], clickable=True, bounds=Bounds(0, i * 100, 1080, i * 100 + 90))
                for i, t in enumerate(texts)]
        return UIState("evil.app", "evil.app.Main", [root, *kids], state_id=sid)

    s1, s2 = state("s1", HOSTILE), state("s2", ["ok"])
    key = "/FrameLayout[]#0/Button[evil.app:id/ba]#0"
    steps = [Step(0, "s1", Action(ActionType.TAP, element_key=key), "s2"),
             Step(1, "s2", Action(ActionType.BACK), "s1")]
    return Trace("hostile-trace", "agent", "evil.app", "1.0", "dev", "test", "2026-01-01", "2026-01-01",
                 {"s1": s1, "s2": s2}, steps)


def test_hostile_ui_text_is_stored_verbatim(empty_graph):
    report = ingest_trace(empty_graph, hostile_trace(), chunk_size=10)
    assert report.chunks_written == 1
    texts = {r["text"] for r in empty_graph.read("element_texts", package="evil.app")}
    for value in HOSTILE:
        assert value in texts
    assert stats_of(empty_graph, "evil.app")["transitions"] == 2


def test_typed_input_and_task_text_are_scrubbed_before_storage(empty_graph):
    trace = hostile_trace()
    field_key = "/FrameLayout[]#0/Button[evil.app:id/bb]#0"
    trace.steps.append(Step(2, "s1", Action(ActionType.INPUT, element_key=field_key,
                                            text="mail bob@example.com or call +1 555 123 4567"), "s2"))
    task = Task("t-private", "send 4111 1111 1111 1111 to alice@example.org", "evil.app", "test",
                [TaskStep("s1", Action(ActionType.INPUT, element_key=field_key, text="pin 12345"))])
    ingest_trace(empty_graph, trace, chunk_size=10)
    ingest_tasks(empty_graph, [task], trace)
    inputs = {r["input_template"] for r in empty_graph.read("transition_inputs", package="evil.app")}
    assert "mail <EMAIL> or call <PHONE>" in inputs
    stored = empty_graph.read("task_steps", package="evil.app")[0]
    assert stored["description"] == "send <CARD> to <EMAIL>"
    assert stored["path"][0]["input"] == "pin <NUMBER>"


def test_a_chunk_the_server_refuses_leaves_nothing_behind(empty_graph):
    trace = scrub_trace(recording_trace(read_recording(DROIDBOT / "anupam.acrylic")))
    rows = build_rows(trace, trace.steps, chunk_states(trace, trace.steps, first=True))
    rows.transitions[-1]["detail"] = {"not": "a property value"}  # the server rejects maps as properties
    with pytest.raises(GraphError, match="writing chunk 0"):
        empty_graph.write_chunk(trace, 0, rows)
    assert empty_graph.read("check_duplicates")[0]["screens"] == 0
    assert empty_graph.stats("anupam.acrylic") == []
    # The same chunk, intact, then goes in whole.
    assert ingest_trace(empty_graph, trace, chunk_size=1000).chunks_written == 1
    assert stats_of(empty_graph, "anupam.acrylic")["states"] == utg_nodes(DROIDBOT / "anupam.acrylic")


@pytest.mark.parametrize("text, expected, walked", [
    ('{"a": ["x\\ud800y", {"k\\u0007": "\\b\\f"}]}', {"a": ["xy", {"k": ""}]}, True),  # escaped unsafe characters
    ('{"a": "del\x7f", "b": "\\uFFFE!"}', {"a": "del", "b": "!"}, True),  # the raw character, a non-character
    ('{"a": "caf\\u00e9 \\n\\t ok", "b": [1, 2.5, null]}', {"a": "café \n\t ok", "b": [1, 2.5, None]}, False),
])
def test_read_json_cleans_what_may_hold_an_unsafe_character_and_only_that(tmp_path, monkeypatch, text, expected,
                                                                          walked):
    """Cleaning every string is most of a recording's read time: documents without an unsafe character
    (raw or escaped) skip it, and the others come out as clean as before."""
    import appmem.ingest.droidbot

    calls = []
    monkeypatch.setattr(appmem.ingest.droidbot, "clean_all", lambda value: calls.append(1) or clean_all(value))
    path = tmp_path / "state_1.json"
    path.write_text(text, encoding="utf-8")
    assert read_json(path) == expected
    assert bool(calls) == walked
