"""AutoDroid memory and DroidTask gold traces in the real graph: tasks point at stored elements."""
from __future__ import annotations

import json

from appmem.ingest.autodroid import read_autodroid, task_id_of
from appmem.ingest.pipeline import ingest_tasks, ingest_trace
from tests.conftest import DROIDTASK


def test_gold_tasks_link_every_step_to_an_element_and_reimport_is_a_noop(empty_graph):
    folder = DROIDTASK / "calendar"
    imported = read_autodroid(folder, "calendar")
    for trace in (imported.trace, imported.demo_trace):
        assert ingest_trace(empty_graph, trace, chunk_size=50).chunks_written > 0
    ingest_tasks(empty_graph, imported.tasks, imported.demo_trace)
    before = empty_graph.stats(imported.trace.package)
    gold = {task_id_of(imported.trace.package, t["task_id"]): t for t in json.loads((folder / "tasks.json").read_text())}
    stored = empty_graph.read("task_steps", package=imported.trace.package)
    assert len(stored) == len(gold)
    for row in stored:
        labelled = [p for p in gold[row["id"]]["profile"] if p["label"][0] >= 0]
        assert row["steps"] == len(labelled)
        assert [p["index"] for p in row["path"]] == list(range(len(labelled))), row["description"]
    delete_all = next(r for r in stored if r["description"] == "delete all the events in the Calendar app")
    assert [p["element"] for p in delete_all["path"]] == ["More options", "Settings", "Delete all events", "YES"]

    again = read_autodroid(folder, "calendar")
    assert all(ingest_trace(empty_graph, t, chunk_size=50).already_present for t in (again.trace, again.demo_trace))
    ingest_tasks(empty_graph, again.tasks, again.demo_trace)
    assert empty_graph.stats(imported.trace.package) == before
