"""Recall, app choice, cross-app plans, hints and the app document over the real stack.

Memory: the six DroidTask apps (exploration + gold demonstrations: this test is about
recall; a changed-parameter case per app) and three DroidBot apps (two apps the shared launcher starts, one
whose recorded run went on into the system settings).
"""
from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace

import pytest

from appmem.agent.appgraph import AppGraph
from appmem.agent.apps import app_for_screen, choose_app
from appmem.agent.appdoc import app_doc, token_counter
from appmem.agent.crossapp import connect
from appmem.agent.hints import hints
from appmem.agent.planjson import agent_plan
from appmem.agent.service import Service
from appmem.agent.planner import Planner
from appmem.agent.recall import Recall
from appmem.ingest.autodroid import read_autodroid
from appmem.ingest.pipeline import ingest_trace
from appmem.semantic.embedder import Embedder
from appmem.semantic.pipeline import summarize
from appmem.semantic.summaries import DeterministicSummarizer
from appmem.semantic.snapshots import SnapshotVectors
from appmem.semantic.vectors import VectorStore, open_qdrant
from tests.conftest import DROIDTASK, REPO
from tests.shared_data import RECALL, uses

CALENDAR, CONTACTS = "com.simplemobiletools.calendar.pro", "com.simplemobiletools.contacts.pro"
ACRYLIC, CLOCK24, ADSILENCE = "anupam.acrylic", "com.chancehorizon.just24hoursplus", "bluepie.ad_silence"
LAUNCHER, SETTINGS = "com.android.launcher3", "com.android.settings"


@pytest.fixture(scope="module")
@uses(RECALL)
def memory(shared_graph, settings, every_rule_on):
    store = shared_graph.hold(RECALL)
    imports = {app: read_autodroid(DROIDTASK / app, app)
               for app in ("applauncher", "calendar", "camera", "clock", "contacts", "notes")}
    client = open_qdrant(settings)
    embedder = Embedder(settings.home)
    vectors = VectorStore(client, embedder.dim, settings.snapshot_path)
    summarize(store, vectors, embedder, DeterministicSummarizer(settings.risky_words))
    planner = Planner(store, vectors, embedder, config=every_rule_on)
    yield Recall(store, vectors, embedder, planner), planner, imports
    client.close()


def plan_dict(plan) -> dict:
    return agent_plan(plan).model_dump()


def labels(plan) -> list[str]:
    return [(s["element"] or {}).get("label", "") for s in plan_dict(plan)["steps"]]


def test_a_done_task_is_recalled_with_its_steps_and_provenance(memory, store):
    recall, _, _ = memory
    plan = recall.recall("Delete contact Bob", [CONTACTS])
    assert plan.source == "recall" and plan_dict(plan)["source"] == "recall"
    assert labels(plan) == ["Bob", "Delete", "Yes"]
    assert plan.recalled["source"] == "droidtask" and plan.recalled["trace_id"] and plan.recalled["devices"] == 1
    assert all(s.package == CONTACTS and s.element.locators for s in plan.steps)


@pytest.mark.parametrize("task, slot, value", [
    ("Delete contact Alice", "item", "Alice"),  # a list item another demonstration chose
    ("Add the holidays of Germany to the calendar", "item", "Germany"),  # an item memory never saw
    ("create a new event, the task is 'shopping', save it", "value", "shopping"),  # quoted text
    ("Create a new contact Stephen Bob, mobile number 98765432100", "value", "98765432100"),  # a number
    # one per other shared app: an option of a list, a percentage, a duration, a named text
    ("Change column count to 5", "item", "5 columns"),  # applauncher: "… to 3" was demonstrated
    ("set photo compression quality to 80%", "item", "80%"),  # camera: "… to 50%"
    ("Set the snooze time to 10 minute", "item", "10 minutes"),  # clock: "… to 5 minute"
    ("Create a checklist note called 'Errands'", "value", "Errands"),  # notes: "… called 'NewCheckList'"
])
def test_a_recalled_task_carries_the_new_parameter_into_every_step_that_used_the_old_one(memory, task, slot, value):
    recall, _, _ = memory
    plan = recall.recall(task)
    assert plan is not None and plan.source == "recall"
    carried = [s for s in plan.steps if s.slot == slot]
    assert carried and all(value in (s.input if slot == "value" else s.element.label) for s in carried)
    old = [p["old"] for p in plan.recalled["params"]]
    assert not any(o in (s.input or "") or (s.element and s.element.label == o) for o in old for s in plan.steps)


def test_a_task_of_another_structure_is_not_recalled(memory):
    recall, _, _ = memory
    assert recall.recall("Delete all contacts", [CONTACTS]) is None
    assert recall.recall("Create a new group 'Family'", [CONTACTS]) is None


def test_a_step_whose_element_is_gone_from_the_new_version_is_planned_from_there(memory, store, settings):
    recall, _, imports = memory
    demo = imports["calendar"].demo_trace
    task = next(t for t in imports["calendar"].tasks if t.description == "delete all the events in the Calendar app")
    dialog = task.steps[-1].state_id  # the confirm dialog: in version 2 its button reads otherwise
    state = demo.states[dialog]
    views = [replace(v, text="Confirm") if v.text == "YES" else v for v in state.views]
    states = {**demo.states, dialog: replace(state, views=views, structure="")}
    v2 = replace(demo, id=demo.id + "-v2", app_version="2", states=states,  # explored after version 1
                 started="2030-01-01T00:00:00Z", ended="2030-01-01T00:10:00Z")
    ingest_trace(store, v2, chunk_size=200)
    summarize(store, recall.vectors, recall.embedder, DeterministicSummarizer(settings.risky_words), [CALENDAR])
    plan = recall.recall("delete all the events in the Calendar app", [CALENDAR])
    assert plan.source == "recall" and plan.replanned_from == 3
    assert labels(plan)[:3] == ["More options", "Settings", "Delete all events"] and len(plan.steps) > 3
    # The recalled steps are on screens version 2 still shows (the demonstration's version is
    # unknown, so its edges are never judged stale: what the planner adds may use them).
    recalled = [s.screen_id for s in plan.steps[:plan.replanned_from]]
    versions = {r["id"]: r["versions"] for r in store.read("recall_screens", ids=recalled)}
    assert len(versions) == len(set(recalled)) and all("2" in seen for seen in versions.values())


def test_the_app_is_chosen_when_the_agent_does_not_say(memory):
    recall, _, _ = memory
    assert choose_app(recall, "Add contact Bob to Favorites").package == CONTACTS
    assert choose_app(recall, "Add contact Bob to Favorites").by == "recall"
    choice = choose_app(recall, "change the view of the calendar to the yearly view")
    assert choice.package == CALENDAR


def test_a_screen_two_apps_memories_hold_goes_to_the_app_whose_entry_it_is_nearest(memory):
    """The app launcher's exploration went on into the camera it launched, and AutoDroid HTML names no
    app, so the launcher's memory files the camera's screen as its own. Asked from that screen without
    --app, the screen decides, whatever the task's words (they fit no app here), and of the apps that hold
    it exactly, the camera, where it is the entry, not the launcher, where a tap led to it."""
    from appmem.agent.locate import locate, state_from_html
    from appmem.graph.screens import screen_of

    recall, planner, _ = memory
    camera, launcher = "com.simplemobiletools.camera.pro", "com.simplemobiletools.applauncher"

    def holders(html: str) -> dict[str, str]:
        ids = [screen_of(state_from_html(html, p), p, "").id for p in (camera, launcher)]
        return {r["package"]: r["id"] for r in recall.store.read("app_choice_screens", ids=ids)}
    starts = [t["profile"][0]["state"] for t in json.loads((DROIDTASK / "camera" / "tasks.json").read_text())]
    html, holders = next((h, found) for h in starts if len(found := holders(h)) == 2)
    graph = planner.graph([launcher])
    assert holders[launcher] not in graph.entries and holders[camera] in planner.graph([camera]).entries
    located = lambda package, state: locate(recall.store, package, state, planner.graph([package]))  # noqa: E731
    choice = app_for_screen(recall, located, "open the settings", lambda p: state_from_html(html, p))
    assert (choice.package, choice.by) == (camera, "screen")


def test_an_element_of_a_screen_another_app_enters_on_counts_for_that_app(memory):
    """Without a screen, the task's words choose the app. The launcher's memory holds the camera's entry
    screen (its exploration launched the camera): an element found there counts for the camera."""
    from appmem.agent.apps import POOL_HITS, owners, rank_packages

    recall, planner, _ = memory
    camera, launcher = "com.simplemobiletools.camera.pro", "com.simplemobiletools.applauncher"
    text = "toggle the timer mode"  # a control of the camera's entry screen, as its memory labels it
    index = planner.index(None)
    hits = index.search(recall.embedder.query(text), text, POOL_HITS)
    moved = owners(recall, hits)
    assert (launcher, camera) in {(package, owner) for (package, _), owner in moved.items()}
    assert all(planner.graph([owner]).entries for owner in moved.values())
    ranking = [p for p, _ in rank_packages(index, recall.embedder, text, recall)]
    assert ranking[0] == camera and launcher not in ranking[:1]


def test_recall_and_app_choice_read_the_snapshots_alike(memory, store, settings):
    """Serve workers recall and choose the app from the read-only snapshots: same answers as from Qdrant;
    recall within an app reads only that app's file."""
    recall, planner, _ = memory
    reader = SnapshotVectors(settings.snapshot_path, recall.embedder.dim)
    mine = Recall(store, reader, recall.embedder, Planner(store, reader, recall.embedder, config=planner.config))
    for task in ("Delete contact Alice", "delete all the events in the Calendar app"):
        app = CONTACTS if "contact" in task else CALENDAR
        assert [m.as_dict() for m in mine.matches(task, [app])] == [m.as_dict() for m in recall.matches(task, [app])]
    assert reader.files_read == [CONTACTS, CALENDAR]
    for task in ("Add contact Bob to Favorites", "change the view of the calendar to the yearly view",
                 "draw a red line"):
        a, b = choose_app(mine, task), choose_app(recall, task)
        assert (a.package, a.by, round(a.score, 4)) == (b.package, b.by, round(b.score, 4))
        # the same scores; apps tied exactly (the same "OK" in both) may come in another order
        assert [round(s, 4) for _, s in a.ranking] == [round(s, 4) for _, s in b.ranking]
        cut = round(a.ranking[-1][1], 4)
        assert {p for p, s in a.ranking if round(s, 4) > cut} == {p for p, s in b.ranking if round(s, 4) > cut}


def test_a_plan_into_another_app_goes_through_the_launcher(memory, store):
    """HOME, then the launcher's launch: not the painting app's CONTINUE and a stop, the way its recording once
    left it (nothing is done in the app in front)."""
    _, planner, _ = memory
    start = store.read("planner_entry_screens", packages=[ACRYLIC])[0]["screen_id"]
    target = planner.plan("open the settings", [CLOCK24])
    plan = plan_dict(connect(store, target, start))
    steps = plan["steps"]
    launch = [i for i, s in enumerate(steps) if s["action"] == "start_app"]
    assert len(launch) == 1 and steps[launch[0]]["package"] == LAUNCHER and steps[launch[0]]["input"] == CLOCK24
    assert steps[0]["package"] == ACRYLIC and {s["package"] for s in steps[launch[0] + 1:]} == {CLOCK24}
    assert [s["action"] for s in steps[:launch[0]]] == ["home"]
    assert steps[0]["screen_id"] == start and all(s["to_screen"] for s in steps[:launch[0] + 1])


def test_a_plan_follows_an_observed_edge_into_another_app(memory, store, settings):
    recall, _, _ = memory
    start = store.read("planner_entry_screens", packages=[ADSILENCE])[0]["screen_id"]
    graph = AppGraph.load(store, [ADSILENCE])
    grant = next(e for e in graph.edges[start] if e.element_id and graph.elements[e.element_id].label == "GRANT PERMISSION")
    service = Service(store, recall.vectors, recall.embedder, settings)
    plan = service.plan("allow notification access", SETTINGS, screen_id=start).model_dump()
    assert [s["package"] for s in plan["steps"]][::len(plan["steps"]) - 1] == [ADSILENCE, SETTINGS]
    assert plan["steps"][0]["element"]["label"] == "GRANT PERMISSION"
    assert plan["steps"][1]["screen_id"] == grant.target
    assert not any(s["action"] in ("home", "start_app") for s in plan["steps"])


def test_hints_say_where_each_element_of_the_current_screen_leads(memory, store, settings):
    recall, _, imports = memory
    html = imports["calendar"].trace.states[imports["calendar"].trace.steps[0].source_state]
    out = hints(store, recall.vectors, recall.embedder, "delete all events", CALENDAR, html)
    assert out["match"] == "exact"
    first = out["hints"][0]
    assert first["element"] == "More options" and first["target"] == "Delete all events" and first["steps_after"] == 2
    assert first["locators"] and "More options" in first["text"]
    # A plan asked from that screen carries the same hints (AutoDroid's memory injection, with any plan).
    answered = Service(store, recall.vectors, recall.embedder, settings).plan("delete all events", CALENDAR,
                                                                              screen_id=out["screen_id"])
    assert answered.steps and answered.hints[0].text == first["text"]


def test_the_app_document_fits_its_budget_and_says_how_to_get_everywhere(memory, store, settings):
    count = token_counter(settings.home)
    doc = app_doc(store, CALENDAR, count, budget=1500)
    assert doc["tokens"] <= 1500 < doc["tokens_untrimmed"] and doc["dropped"]["elements"] > 0
    by_name = {s["name"]: s for s in doc["screens"]}
    assert by_name["Settings"]["way_in"] == ["More options", "Settings"]
    elements = [e for s in doc["screens"] for e in s["elements"]]
    assert elements and all(e["locators"] for e in elements)
    assert any(e["effect"].startswith("opens") for e in elements)


def test_appmem_doc_command(memory, stack_env):
    out = subprocess.run([sys.executable, "-m", "appmem.cli", "doc", "--app", "calendar", "--format", "json",
                          "--budget", "800"], capture_output=True, text=True, cwd=REPO, env=stack_env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["tokens"] <= 800
    bad = subprocess.run([sys.executable, "-m", "appmem.cli", "doc", "--app", "no.such.app"], capture_output=True,
                         text=True, cwd=REPO, env=stack_env, timeout=120)
    assert bad.returncode != 0 and "no.such.app" in bad.stderr and "Traceback" not in bad.stderr
