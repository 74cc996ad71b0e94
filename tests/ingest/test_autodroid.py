"""AutoDroid / DroidTask import: real data of the 6 shared apps, the screen-identity
rule, hostile HTML and malformed input. Pure: no database."""
from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType

import pytest
import yaml

from appmem.errors import InputFormatError
from appmem.formats.ui import ActionType, UIState, view_text
from appmem.graph.screens import elements_of, screen_of, screen_signature, view_paths
from appmem.ingest.autodroid import APP_PACKAGES, AutodroidImport, package_of, read_autodroid, task_id_of
from appmem.formats.autodroid_html import HtmlSyntaxError, parse_html, state_from_elements

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
DROIDTASK = SHARED / "datasets" / "droidtask"
SCORER = SHARED / "eval" / "droidtask_score.py"
APPS = ["calendar", "clock", "contacts", "notes", "camera", "applauncher"]

needs_data = pytest.mark.skipif(not DROIDTASK.is_dir(), reason="shared DroidTask data not present")

MAIN_JULY = ("<p id=0>Calendar</p>\n<button id=1 text='Search'></button>\n<button id=2 text='Change view'></button>\n"
             "<button id=3 text='More options'></button>\n<button id=4>July</button>\n"
             "<button id=5 text='New Event'></button>\n<button id=6>go back</button>")
MAIN_EMPTY = ("<p id=0>Calendar</p>\n <button id=1 text='Search'></button>\n"
              " <button id=2 text='Change view'></button>\n <button id=3 text='More options'></button>\n"
              " <p id=4>Seems like you don't have any upcoming events.\n"
              "You can add some with the Plus button at the bottom.</p>\n <button id=5 text='New Event'></button>\n"
              " <button id=6>go back</button>")


def state(html: str, package: str = "com.example") -> UIState:
    return state_from_elements(parse_html(html), package, f"{package}.MainActivity")


@pytest.fixture(scope="module")
def imports() -> dict[str, AutodroidImport]:
    return {app: read_autodroid(DROIDTASK / app, app) for app in APPS}


@pytest.fixture(scope="module")
def scorer() -> ModuleType:
    spec = importlib.util.spec_from_file_location("droidtask_score", SCORER)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- real data -------------------------------------------------------------------------------------

@needs_data
@pytest.mark.parametrize("app", APPS)
def test_memory_counts(app: str, imports: dict[str, AutodroidImport]) -> None:
    records = yaml.safe_load((DROIDTASK / app / "utg.yaml").read_text(encoding="utf-8"))["records"]
    trace = imports[app].trace
    assert trace is not None and trace.source == "autodroid" and trace.explorer == "autodroid"
    assert trace.package == APP_PACKAGES[app] and trace.app_version == "unknown"
    # one Step per record whose action has a known target: the next record
    acting = [i for i, r in enumerate(records[:-1]) if r["Choice"] != -1]
    assert [s.index for s in trace.steps] == acting
    htmls = {"\n".join(e.source for e in parse_html(r["State"])) for r in records}
    assert len(trace.states) == len(htmls)
    for step in trace.steps:
        record, following = records[step.index], records[step.index + 1]
        assert step.source_state == state(record["State"], trace.package).state_id
        assert step.target_state == state(following["State"], trace.package).state_id
        if {e.id: e for e in parse_html(record["State"])}[record["Choice"]].is_back:
            assert step.action.type is ActionType.BACK and step.action.element_key == ""
        elif record["Input"] != "null":
            assert step.action.type is ActionType.INPUT and step.action.text == record["Input"]
        else:
            assert step.action.type is ActionType.TAP and step.action.element_key


@needs_data
@pytest.mark.parametrize("app", APPS)
def test_task_counts(app: str, imports: dict[str, AutodroidImport]) -> None:
    raw = json.loads((DROIDTASK / app / "tasks.json").read_text(encoding="utf-8"))
    result = imports[app]
    assert [t.id for t in result.tasks] == [task_id_of(APP_PACKAGES[app], t["task_id"]) for t in raw]
    for task, entry in zip(result.tasks, raw):
        assert task.description == entry["task"] and task.source == "droidtask"
        assert task.package == APP_PACKAGES[app]
        acted = [p for p in entry["profile"] if p["label"][0] >= 0]
        assert len(task.steps) == entry["step_num"] - 1 == len(acted)
        for step, profile in zip(task.steps, acted):
            want = ActionType.INPUT if profile["label"][1] != "null" else ActionType.TAP
            assert step.action.type is want
            assert step.action.text == ("" if want is ActionType.TAP else profile["label"][1])
    demo = result.demo_trace
    assert demo is not None and demo.source == "droidtask"
    assert len(demo.steps) == sum(t["step_num"] - 1 for t in raw)
    for task in result.tasks:  # every task step is a demo step from the same state
        for step in task.steps:
            assert step.state_id in demo.states
    assert {s.source_state for s in demo.steps} <= set(demo.states)
    assert {s.target_state for s in demo.steps} <= set(demo.states)


@needs_data
@pytest.mark.parametrize("app", APPS)
def test_gold_elements_exist_with_their_label(app: str, imports: dict[str, AutodroidImport],
                                              scorer: ModuleType) -> None:
    """The element of every gold step is an Element of its screen, labelled as the scorer reads it."""
    raw = json.loads((DROIDTASK / app / "tasks.json").read_text(encoding="utf-8"))
    result = imports[app]
    assert result.demo_trace is not None
    for task, entry in zip(result.tasks, raw):
        acted = [p for p in entry["profile"] if p["label"][0] >= 0]
        for step, profile in zip(task.steps, acted):
            ui = result.demo_trace.states[step.state_id]
            screen = screen_of(ui, ui.package, "unknown")
            elements = elements_of(ui, screen, frozenset({step.action.element_key}))
            element = next(e for e in elements.values() if e.key == step.action.element_key)
            gold = scorer.elements(profile["state"])[profile["label"][0]]
            # the scorer reads a plan step's text, content description and label
            assert {scorer.norm(element.text), scorer.norm(element.content_desc), scorer.norm(element.label)} \
                & gold["labels"]
            assert element.screen_id == screen.id and element.locators


@needs_data
def test_screens_merge(imports: dict[str, AutodroidImport]) -> None:
    figures = {}
    for app, result in imports.items():
        assert result.trace is not None and result.demo_trace is not None
        states = {**result.trace.states, **result.demo_trace.states}
        screens = {screen_signature(s) for s in states.values()}
        assert len(screens) < len(states)
        figures[app] = (len(states), len(screens))
    total_states = sum(n for n, _ in figures.values())
    total_screens = sum(n for _, n in figures.values())
    assert total_screens <= 0.6 * total_states, figures


def test_same_screen_with_other_content_merges() -> None:
    july, empty = state(MAIN_JULY), state(MAIN_EMPTY)
    assert july.state_id != empty.state_id
    assert screen_signature(july) == screen_signature(empty)
    # the chrome keeps its element keys: "New Event" is the same element in both
    keys = [{v.content_desc: k for i, k in view_paths(s.views).items()
             for v in s.views if v.index == i and v.content_desc} for s in (july, empty)]
    assert keys[0] == keys[1]
    # checkbox switch states and labels that are values do not split a screen
    on = state("<p id=0>Settings</p><checkbox id=1 checked=True>Start week on Sunday ON</checkbox>"
               "<button id=2>Snooze time<br>10 minutes</button><button id=3>go back</button>")
    off = state("<p id=0>Settings</p><checkbox id=1 checked=False>Start week on Sunday OFF</checkbox>"
                "<button id=2>Snooze time<br>30 minutes</button><button id=3>go back</button>")
    assert screen_signature(on) == screen_signature(off)


def test_different_screens_differ() -> None:
    search = state(MAIN_JULY.replace("<p id=0>Calendar</p>", "<button id=0 text='Collapse'></button>"))
    fab = state(MAIN_JULY.replace("text='New Event'", "text='New Task'"))
    yearly = state(MAIN_JULY.replace("<p id=0>Calendar</p>", "<p id=0>Settings</p>"))
    signatures = {screen_signature(s) for s in (state(MAIN_JULY), search, fab, yearly)}
    assert len(signatures) == 4
    # menus (no icon, title or checkbox) are told apart by their items
    menu_a = state("<button id=0>Add holidays</button><button id=1>Settings</button><button id=2>go back</button>")
    menu_b = state("<button id=0>Rename note</button><button id=1>Settings</button><button id=2>go back</button>")
    assert screen_signature(menu_a) != screen_signature(menu_b)
    # another app's identical HTML is another app's screen
    assert screen_of(state(MAIN_JULY, "a.b"), "a.b", "1").id != screen_of(state(MAIN_JULY, "c.d"), "c.d", "1").id


@needs_data
def test_real_merges_and_splits(imports: dict[str, AutodroidImport]) -> None:
    def by_text(result: AutodroidImport, *texts: str) -> list[UIState]:
        assert result.trace is not None and result.demo_trace is not None
        states = {**result.trace.states, **result.demo_trace.states}.values()
        return [s for s in states if all(any(t == (v.text or v.content_desc) for v in s.views) for t in texts)]

    calendar = imports["calendar"]
    main = by_text(calendar, "Change view", "New Event", "July") + by_text(calendar, "Change view", "New Event")
    assert len({screen_signature(s) for s in main}) == 1
    settings = by_text(calendar, "Navigate up", "Settings", "Delete all events")
    menu = by_text(calendar, "Add holidays", "Settings", "About")
    assert settings and menu and screen_signature(settings[0]) != screen_signature(menu[0])
    contacts = imports["contacts"]
    details = [s for name in ("Alice", "Bob", "Jack") for s in by_text(contacts, "Edit contact", "Send SMS", name)]
    assert len(details) >= 3 and len({screen_signature(s) for s in details}) == 1


@needs_data
def test_shared_states_and_deterministic_ids(imports: dict[str, AutodroidImport]) -> None:
    calendar = imports["calendar"]
    assert calendar.trace is not None and calendar.demo_trace is not None
    assert set(calendar.trace.states) & set(calendar.demo_trace.states)  # the same HTML is the same state
    again = read_autodroid(DROIDTASK / "calendar", "calendar")
    assert again.trace is not None and again.trace.id == calendar.trace.id
    assert again.demo_trace is not None and again.demo_trace.id == calendar.demo_trace.id
    assert calendar.trace.id != calendar.demo_trace.id
    other = read_autodroid(DROIDTASK / "calendar", "calendar", app_version="1.2")
    assert other.trace is not None and other.trace.id != calendar.trace.id and other.trace.app_version == "1.2"


def test_package_names() -> None:
    assert package_of("calendar") == "com.simplemobiletools.calendar.pro"
    assert package_of("applauncher") == "com.simplemobiletools.applauncher"
    assert package_of("org.example.app") == "org.example.app"


# --- the HTML ----------------------------------------------------------------------------------------

def test_views_of_a_state() -> None:
    ui = state("<button id=0 text='Search'></button>\n<input id=1 >Title</input>\n"
               "<checkbox id=2 checked=True>All-day</checkbox>\n<p id=3>New Event</p>\n"
               "<scroller id=4></scroller>\n<button id=5>go back</button>\n<button id=6>Snooze<br>10 minutes</button>")
    views = {v.index: v for v in ui.views}
    assert 5 not in views  # the go-back button is the BACK key, not a view
    assert views[0].class_name == "android.widget.Button" and views[0].content_desc == "Search" and views[0].clickable
    assert views[1].class_name == "android.widget.EditText" and views[1].editable and views[1].text == "Title"
    assert views[2].checkable and views[2].checked and views[2].text == "All-day"
    assert views[3].class_name == "android.widget.TextView" and not views[3].interactive
    assert views[4].class_name == "android.widget.ScrollView" and views[4].scrollable
    assert views[6].text == "Snooze\n10 minutes"
    leaves = [views[i] for i in (0, 1, 2, 3, 4, 6)]
    centers = [v.bounds.center for v in leaves]
    assert len(set(centers)) == len(centers)
    assert all(0 <= x < ui.width and 0 <= y < ui.height for x, y in centers)
    assert all(v.package == "com.example" for v in ui.views)
    roots = [v for v in ui.views if v.parent == -1]
    assert len(roots) == 1 and roots[0].bounds.as_list() == [0, 0, ui.width, ui.height]
    assert ui.structure and ui.state_id
    compact = "<p id=0>x</p>\n<button id=1>go back</button>"
    assert state(compact).state_id == state(compact.replace("\n", "\n   \n ")).state_id  # layout is not content
    assert state(compact).state_id != state(compact.replace("x", "y")).state_id


HOSTILE = [
    "It's \"quoted\" — 'twice'",
    "back\\slash \\' and \\\\ and trailing \\",
    "ünïcødé 日本語 עברית 🎉\u200b",
    "a > b < c <br-ish &amp; %s {0}",
    "x" * 200_000,
]


def quote(value: str) -> str:
    """Write a value as AutoDroid-style quoted text: a quote escaped with a backslash."""
    return "'" + value.replace("'", "\\'") + "'"


@pytest.mark.parametrize("value", HOSTILE, ids=["quotes", "backslashes", "unicode", "markup", "huge"])
def test_hostile_html_parses_verbatim(value: str, tmp_path: Path) -> None:
    inner = value.replace("</", "< /")
    html = f"<button id=0 text={quote(value)}>{inner}</button>\n<checkbox id=1 checked=False>{inner}</checkbox>\n" \
           f"<button id=2>go back</button>"
    elements = parse_html(html)
    assert elements[0].content_desc == value and elements[0].inner == inner and elements[1].inner == inner
    # and through a utg.yaml written by a YAML library
    records = [{"State": html, "Choice": 0, "Input": "null", "state_str": "a", "new_state_str": "b"},
               {"State": html, "Choice": 1, "Input": value, "state_str": "a", "new_state_str": "b"},
               {"State": html, "Choice": -1, "Input": "null", "state_str": "a", "new_state_str": "b"}]
    (tmp_path / "utg.yaml").write_text(yaml.safe_dump({"records": records}, allow_unicode=True), encoding="utf-8")
    result = read_autodroid(tmp_path, "calendar")
    assert result.trace is not None and result.demo_trace is None and result.tasks == []
    ui = next(iter(result.trace.states.values()))
    # the screen's views keep a text cleaned of invisible characters, at most TEXT_MAX of it (formats/ui.py)
    assert ui.views[3].content_desc == view_text(value) and ui.views[3].text == view_text(inner) \
        and ui.views[4].text == view_text(inner)
    assert [s.action.type for s in result.trace.steps] == [ActionType.TAP, ActionType.INPUT]
    assert result.trace.steps[1].action.text == value


def test_unescaped_quotes_and_markup_in_values() -> None:
    e = parse_html("<button id=0 text='Don't stop'>x</button><button id=1 text='Options<br>Options'></button>"
                   "<p id=2 text=\"dq\">y</p>")
    assert [x.content_desc for x in e] == ["Don't stop", "Options<br>Options", "dq"]


@pytest.mark.parametrize("html, problem", [
    ("", "no elements"),
    ("just text", "expected '<tag id=N'"),
    ("<button id=0>never closed", "not closed"),
    ("<div id=0>x</div>", "unknown tag"),
    ("<button id=0 text='open>x</button>", "unterminated"),
    ("<button id=0>a</button><button id=0>b</button>", "twice"),
    ("<button id=0 text='a' text='b'>x</button>", "twice"),
    ("<button id=0 =x>y</button>", "malformed attribute"),
    ("<button>no id</button>", "expected '<tag id=N'"),
])
def test_unparsable_html(html: str, problem: str) -> None:
    with pytest.raises(HtmlSyntaxError, match=re.escape(problem)):
        parse_html(html)


# --- malformed input -----------------------------------------------------------------------------------

GOOD = "<button id=0>OK</button>\n<button id=1>go back</button>"


def write_memory(folder: Path, records: object) -> Path:
    path = folder / "utg.yaml"
    path.write_text(yaml.safe_dump({"records": records}), encoding="utf-8")
    return path


def write_tasks(folder: Path, tasks: object) -> Path:
    path = folder / "tasks.json"
    path.write_text(json.dumps(tasks), encoding="utf-8")
    return path


def record(**fields: object) -> dict[str, object]:
    return {"State": GOOD, "Choice": 0, "Input": "null", "state_str": "s", "new_state_str": "n", **fields}


def profile_step(**fields: object) -> dict[str, object]:
    return {"state": GOOD, "label": [0, "null"], "history": "", "state_str": "s", **fields}


def expect_error(folder: Path, source: Path, *words: str) -> None:
    """One problem, naming the file and what is wrong: an error when nothing in the file is usable,
    else the malformed record or task is left out and listed in `problems`."""
    try:
        problems = read_autodroid(folder, "notes").problems
    except InputFormatError as exc:
        problems = [exc]
    assert len(problems) == 1 and problems[0].source == str(source)
    for word in words:
        assert word in problems[0].problem


def test_a_malformed_record_is_left_out_and_the_rest_imported(tmp_path: Path) -> None:
    other = "<button id=0>Other</button>\n<button id=1>go back</button>"
    write_memory(tmp_path, [record(), record(Choice=9), record(State=other), record(State=GOOD)])
    write_tasks(tmp_path, [{"task_id": "t", "task": "do", "profile": [profile_step(label=[5, "null"])]},
                           {"task_id": "u", "task": "ok", "profile": [profile_step(), profile_step(label=[-1])]}])
    result = read_autodroid(tmp_path, "notes")
    assert [(p.source.rsplit("/", 1)[-1], p.problem.split(":")[0]) for p in result.problems] == [
        ("utg.yaml", "record 1"), ("tasks.json", "task 0 profile step 0")]
    assert result.trace is not None and len(result.trace.states) == 2
    assert [(s.index, s.action.type.value) for s in result.trace.steps] == [(2, "tap")], "no step across record 1"
    assert [t.description for t in result.tasks] == ["ok"] and result.demo_trace is not None
    assert len(result.demo_trace.steps) == 1


@pytest.mark.parametrize("records, words", [
    ([record(), {"State": GOOD, "Input": "null"}], ("record 1", "'Choice'")),
    ([record(State="<button id=0>x")], ("record 0", "unparsable")),
    ([record(), record(Choice=7)], ("record 1", "element id 7")),
    ([record(Choice="two")], ("record 0", "'two'")),
    ([record(Input=["a"])], ("record 0", "Input")),
    ([record(State=42)], ("record 0", "not an HTML string")),
    (["not a mapping"], ("record 0",)),
    ({"a": 1}, ("'records' list",)),
])
def test_malformed_memory(records: object, words: tuple[str, ...], tmp_path: Path) -> None:
    expect_error(tmp_path, write_memory(tmp_path, records), *words)


def test_malformed_yaml(tmp_path: Path) -> None:
    path = tmp_path / "utg.yaml"
    path.write_text("records:\n- State: '<p id=0>\n  Choice: [", encoding="utf-8")
    expect_error(tmp_path, path, "malformed YAML")
    path.write_text("just a string", encoding="utf-8")
    expect_error(tmp_path, path, "'records' list")


@pytest.mark.parametrize("tasks, words", [
    ({"task_id": "x"}, ("not a list",)),
    ([{"task_id": "t", "profile": []}], ("task 0", "'task'")),
    ([{"task_id": "t", "task": "do", "profile": [profile_step(), profile_step(label=[5, "null"])]}],
     ("task 0 profile step 1", "element id 5")),
    ([{"task_id": "t", "task": "do", "profile": [profile_step(label="0")]}], ("task 0 profile step 0", "label")),
    ([{"task_id": "t", "task": "do", "profile": [profile_step(state="<p id=0>x</q>")]}],
     ("task 0 profile step 0", "unparsable")),
    ([{"task_id": 1, "task": "do", "profile": []}], ("task 0",)),
])
def test_malformed_tasks(tasks: object, words: tuple[str, ...], tmp_path: Path) -> None:
    expect_error(tmp_path, write_tasks(tmp_path, tasks), *words)


def test_malformed_json(tmp_path: Path) -> None:
    path = tmp_path / "tasks.json"
    path.write_text("[{", encoding="utf-8")
    expect_error(tmp_path, path, "malformed JSON")


def test_folder_without_files(tmp_path: Path) -> None:
    expect_error(tmp_path, tmp_path, "utg.yaml", "tasks.json")
    expect_error(tmp_path / "missing", tmp_path / "missing", "not a folder")


def test_tasks_only_and_task_endings(tmp_path: Path) -> None:
    input_state = "<input id=0>Title</input>\n<button id=1>go back</button>"
    write_tasks(tmp_path, [
        {"task_id": "t1", "task": "type and go back", "step_num": 3, "profile": [
            profile_step(state=input_state, label=[0, "hello"]),
            profile_step(label=[1, "null"]),
            profile_step(label=[-1, "null"]),
            profile_step(label=[0, "null"]),  # after the end: ignored
        ]},
        {"task_id": "t2", "task": "unfinished", "step_num": 1, "profile": [profile_step()]},
    ])
    result = read_autodroid(tmp_path, "notes")
    assert result.trace is None and result.demo_trace is not None
    t1, t2 = result.tasks
    assert [s.action.type for s in t1.steps] == [ActionType.INPUT, ActionType.BACK]
    assert t1.steps[0].action.text == "hello" and t1.steps[0].action.element_key
    assert len(t2.steps) == 1  # a last step without a next state is a task step, not a transition
    assert len(result.demo_trace.steps) == 2
    first, second = result.demo_trace.steps
    assert first.target_state == second.source_state and first.index == 0 and second.index == 1
