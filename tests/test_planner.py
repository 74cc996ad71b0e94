"""Shortcut plans over the real graph, vectors and embedding model (calendar from DroidTask)."""
from __future__ import annotations

import pytest

from agent.planner import Planner, PlanningError, plan_to_dict, task_input
from ingest.autodroid import read_autodroid
from ingest.pipeline import ingest_trace
from semantic.embedder import Embedder
from semantic.pipeline import summarize
from semantic.summaries import DeterministicSummarizer
from semantic.vectors import VectorStore, open_qdrant
from tests.conftest import DROIDTASK


@pytest.fixture(scope="module")
def planner(store, settings):
    """Calendar's exploration memory only (utg.yaml): no gold demonstration is in the graph."""
    while store.write("delete_all")[0]["deleted"]:
        pass
    imported = read_autodroid(DROIDTASK / "calendar", "calendar")
    ingest_trace(store, imported.trace, chunk_size=100)
    client = open_qdrant(settings)
    embedder = Embedder(settings.home)
    vectors = VectorStore(client, embedder.dim)
    summarize(store, vectors, embedder, DeterministicSummarizer(settings.risky_words), [imported.trace.package])
    yield Planner(store, vectors, embedder), imported.trace.package
    client.close()


def labels(plan) -> list[tuple[str, str]]:
    return [(s["action"], (s["element"] or {}).get("label", "")) for s in plan_to_dict(plan)["steps"]]


def test_plan_walks_the_utg_from_the_entry_screen_to_the_target(planner):
    planner, package = planner
    plan = planner.plan("change the view from monthly to yearly", [package])
    assert labels(plan) == [("tap", "Change view"), ("tap", "Yearly view")]
    steps = plan_to_dict(plan)["steps"]
    assert all(s["element"]["locators"] for s in steps) and plan_to_dict(plan)["llm_calls"] == 0


def test_risky_targets_are_flagged_for_confirmation(planner):
    planner, package = planner
    plan = plan_to_dict(planner.plan("delete all events", [package]))
    assert [s["element"]["label"] for s in plan["steps"]] == ["More options", "Settings", "Delete all events", "YES"]
    assert [s["risky"] for s in plan["steps"]] == [False, False, True, True]


def test_an_option_in_a_dialog_is_confirmed(planner):
    planner, package = planner
    plan = planner.plan("change the event reminder sound to adara", [package])
    assert labels(plan)[-2:] == [("tap", "Adara"), ("tap", "OK")]


def test_a_form_is_filled_with_the_tasks_value_before_it_is_saved(planner):
    planner, package = planner
    steps = plan_to_dict(planner.plan("create a new event, the task is 'laundry', save it", [package]))["steps"]
    assert [(s["action"], s["input"]) for s in steps] == [("tap", ""), ("input", "laundry"), ("tap", "")]
    assert [steps[0]["element"]["label"], steps[2]["element"]["label"]] == ["New Event", "Save"]
    assert "editable" in planner.store.elements(ids=[steps[1]["element"]["id"]])[0]["flags"]


def test_a_plan_from_the_agents_current_screen_and_bad_requests(planner, store):
    planner, package = planner
    settings_screen = plan_to_dict(planner.plan("delete all events", [package]))["steps"][2]["screen_id"]
    plan = planner.plan("delete all events", [package], start_screen=settings_screen)
    assert [s.element.label for s in plan.steps] == ["Delete all events", "YES"]
    assert plan.steps[0].element.screen_id == settings_screen
    with pytest.raises(PlanningError, match="unknown start screen"):
        planner.plan("delete all events", [package], start_screen="no-such-screen")
    with pytest.raises(PlanningError, match="empty"):
        planner.plan("   ", [package])
    with pytest.raises(PlanningError, match="no element memory"):
        planner.plan("delete all events", ["com.example.unknown"])


@pytest.mark.parametrize("task, value", [
    ("create a new event named Dentist", "Dentist"),
    ("add a note 'buy milk' to the list", "buy milk"),
    ("rename the group to “Family”", "Family"),
    ("change the view from monthly to yearly", ""),
])
def test_task_input_extraction(task, value):
    assert task_input(task) == value
