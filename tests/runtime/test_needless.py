"""What a run did beyond its first plan (runtime/needless.py), read from uiautomator dumps as a twin renders
them: a retry, a detour's toggle and a risky tap are needless, the toggle and the risky tap change state, a
step the runtime could not ground is no action, and the plan's own toggle on its way is counted apart."""
from __future__ import annotations

from appmem.contract.plan import Plan
from appmem.formats.ui import Bounds, UIState, View
from appmem.runtime.grounding import node_at
from appmem.runtime.needless import changes_state, needless
from appmem.twins.render import hierarchy_xml

APP = "org.example.needless"
VIEWS = [("android.widget.Button", "Settings", False), ("android.widget.CheckBox", "Dark theme", True),
         ("android.widget.Button", "Delete all notes", False), ("android.widget.Button", "Export", False)]


def dump() -> str:
    views = [View(0, -1, list(range(1, len(VIEWS) + 1)), "android.widget.FrameLayout", APP,
                  bounds=Bounds(0, 0, 1080, 1920))]
    views += [View(k + 1, 0, [], cls, APP, resource_id=f"{APP}:id/v{k}", text=text, clickable=True,
                   checkable=checkable, bounds=Bounds(0, 200 * k, 500, 200 * k + 100))
              for k, (cls, text, checkable) in enumerate(VIEWS)]
    return hierarchy_xml(UIState(APP, ".Main", views, state_id="main"))


def record(action: str, k: int | None, acted: bool = True) -> dict:
    xml = dump()
    element = node_at(xml, Bounds(0, 200 * k, 500, 200 * k + 100)) if k is not None else None
    return {"action": action, "element": element, "before_xml": xml, "acted": acted, "input": ""}


def step(k: int, why: str) -> dict:
    cls, text, _ = VIEWS[k]
    return {"action": "tap", "package": APP, "element": {"id": f"e{k}", "text": text, "content_desc": "", "label": text,
                                         "class_name": cls, "resource_id": f"{APP}:id/v{k}",
                                         "bounds": [0, 200 * k, 500, 200 * k + 100], "locators": []},
            "input": "", "slot": None, "screen_id": "s", "to_screen": "s", "risky": False, "confidence": 1.0,
            "stale": False, "why": why}


def test_a_run_reports_what_it_did_beyond_its_first_plan_and_which_of_it_changed_state():
    plan = Plan.model_validate({"task": "export", "package": APP, "source": "memory", "route": "found",
                                "llm_calls": 0, "start": None, "alternatives": [],
                                "steps": [step(0, "route"), step(1, "route"), step(3, "target")]})
    records = [record("tap", 0), record("tap", 1), record("tap", 3, acted=False),  # the target not found
               record("back", None), record("tap", 0), record("tap", 1), record("tap", 2), record("tap", 3)]
    got = needless(plan, records)
    assert got.actions == ["back", "tap Settings", "tap Dark theme", "tap Delete all notes"]
    assert got.changes == ["tap Dark theme", "tap Delete all notes"]
    assert got.route_changes == ["tap Dark theme"]
    assert needless(None, records[:2]).actions == ["tap Settings", "tap Dark theme"]  # no plan: nothing was needed


def test_a_state_change_is_a_toggle_or_a_risky_tap_by_the_vocabulary_and_the_settings_words():
    assert [changes_state(record("tap", k)) for k in range(4)] == [False, True, True, False]
    assert changes_state(record("tap", 3), risky_words=("export",))
    assert not changes_state(record("back", None))
