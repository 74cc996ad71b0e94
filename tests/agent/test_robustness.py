"""Nothing an app shows may crash ingest, summarize or plan (property-based, hypothesis).

Random view trees (graph.model UIState/View) and random AutoDroid HTML with
long labels, hundreds of options, empty screens and odd Unicode go through the
pure parts (signatures, elements, scrubbing, rows, UTG contexts, the
deterministic summarizer, the summary schema as an LLM reply fills it); a few
random AutoDroid apps go end to end through import → summarize → plan on the
real stack and the real embedding model.
"""
from __future__ import annotations

import string

import pytest
import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

from appmem.agent.planner import Planner, PlanningError
from appmem.agent.taskparse import ParsedTask, parse_task
from appmem.formats.ui import Action, ActionType, Bounds, UIState, View
from appmem.graph.model import Element, Step, Trace
from appmem.graph.rows import build_rows
from appmem.graph.screens import elements_of, screen_of
from appmem.ingest.autodroid import read_autodroid
from appmem.formats.autodroid_html import HtmlSyntaxError, parse_html, state_from_elements
from appmem.ingest.pipeline import ingest_trace, scrub_trace
from appmem.semantic.contexts import ScreenRow, TransitionRow, build_contexts
from appmem.semantic.llm import LLMBatch
from appmem.semantic.summaries import DeterministicSummarizer, ScreenSummary

# UI text as apps show it: any printable text, plus the odd characters devices report.
ODD = "\u202e\u200b\u0301\ufeff\U0001f600\x00\x07\t\n\r\ud800\udfff\ufffe"
TEXT = st.text(alphabet=st.characters(codec=None, exclude_categories=("Cs",)) | st.sampled_from(ODD), max_size=40) | \
    st.text(alphabet=string.ascii_letters + " ", min_size=200, max_size=900)  # long labels
CLASSES = st.sampled_from(["android.widget.Button", "android.widget.TextView", "android.widget.EditText",
                           "android.widget.CheckBox", "android.widget.Switch", "android.widget.RadioButton",
                           "androidx.recyclerview.widget.RecyclerView", "android.widget.ListView",
                           "android.widget.LinearLayout", "android.view.View", "", "x.y.Custom\u00e9Widget"])
RESOURCE_IDS = st.sampled_from(["", "com.app:id/btnDeleteAll_events", "com.app:id/title", "android:id/text1",
                                "com.app:id/\u00e9t\u00e9_42", "com.app:id/"]) | TEXT
FLAGS = ("clickable", "long_clickable", "checkable", "checked", "scrollable", "editable", "password")


@st.composite
def ui_states(draw, max_views: int = 40) -> UIState:
    """A random view tree: any parent order, any flags, texts and bounds (even inverted ones)."""
    n = draw(st.integers(0, max_views))
    views = []
    for i in range(n):
        parent = draw(st.integers(-1, i - 1)) if i else -1
        flags = draw(st.sets(st.sampled_from(FLAGS)))
        l, t = draw(st.integers(-50, 1200)), draw(st.integers(-50, 2000))
        views.append(View(index=i, parent=parent, children=[], class_name=draw(CLASSES), package="com.app",
                          resource_id=draw(RESOURCE_IDS), text=draw(TEXT), content_desc=draw(TEXT),
                          bounds=Bounds(l, t, l + draw(st.integers(-10, 1100)), t + draw(st.integers(-10, 400))),
                          visible=draw(st.booleans()), **{f: True for f in flags}))
    for v in views:
        if v.parent >= 0:
            views[v.parent].children.append(v.index)
    return UIState(package="com.app", activity=draw(st.sampled_from([".Main", "", "com.app.Ünï"])), views=views,
                   state_id=f"s{draw(st.integers(0, 10**9))}")


@settings(max_examples=40, deadline=None)
@given(state=ui_states(), target=ui_states())
def test_random_view_trees_import(state, target):
    trace = Trace("t", "explorer", "com.app", "1", "dev", "test", "", "", states={state.state_id: state})
    target.state_id = state.state_id + "x"
    trace.states[target.state_id] = target
    keys = [e.key for e in elements_of(state, screen_of(state, "com.app", "1")).values()]
    action = Action(ActionType.TAP, keys[0]) if keys else Action(ActionType.BACK)
    trace.steps = [Step(0, state.state_id, action, target.state_id)]
    clean = scrub_trace(trace)
    rows = build_rows(clean, clean.steps, list(clean.states.values()))
    for row in rows.elements:  # labels are clean text: no NUL, no lone surrogate
        assert "\x00" not in row["label"] and "\ud800" not in row["label"]


@st.composite
def html_states(draw, max_elements: int = 30) -> str:
    """A random AutoDroid state: the tags AutoDroid writes, quoted or bare attributes, `<br>`s, odd text."""
    inner_text = TEXT.map(lambda t: t.replace("<", "‹").replace(">", "›"))
    lines = []
    for i in range(draw(st.integers(1, max_elements))):
        tag = draw(st.sampled_from(["button", "input", "checkbox", "p", "scroller"]))
        attrs = ""
        if draw(st.booleans()):
            attrs += " text='" + draw(inner_text).replace("'", "") + "'"
        if tag == "checkbox" and draw(st.booleans()):
            attrs += f" checked={draw(st.sampled_from(['True', 'False']))}"
        inner = "<br>".join(draw(st.lists(inner_text, max_size=3)))
        if tag == "button" and draw(st.integers(0, 9)) == 0:
            inner = "go back"
        lines.append(f"<{tag} id={i}{attrs}>{inner}</{tag}>")
    return "\n".join(lines)


@settings(max_examples=60, deadline=None)
@given(html=html_states())
def test_random_autodroid_html_parses(html):
    elements = parse_html(html)
    state = state_from_elements(elements, "com.app", "com.app.Main")
    elements_of(state, screen_of(state, "com.app", "1"))


@settings(max_examples=80, deadline=None)
@given(text=st.text(max_size=200))
def test_arbitrary_text_is_html_or_a_syntax_error(text):
    try:
        parse_html(text)
    except HtmlSyntaxError:
        pass


@st.composite
def apps(draw):
    """Screens, elements and transitions of a random app: empty screens, option lists of hundreds, long labels."""
    n = draw(st.integers(1, 6))
    screens = [ScreenRow(f"s{i}", "com.app", "1", draw(st.sampled_from(["", ".Main"])), draw(TEXT)) for i in range(n)]
    elements = []
    for s in screens:
        size = draw(st.sampled_from([0, 1, 3, 12, 300]))
        state = draw(ui_states(max_views=min(size, 40)))
        found = list(elements_of(state, screen_of(state, "com.app", "1")).values())
        for k, e in enumerate(found):
            e.id, e.screen_id = f"{s.id}-{k}", s.id
        if size == 300:  # a dialog of hundreds of options
            elements += [Element(f"{s.id}-o{k}", s.id, class_name="android.widget.RadioButton",
                                 text=f"Option number {k} " + "x" * draw(st.integers(0, 80)),
                                 flags=["checkable", "clickable"]) for k in range(size)]
        elements += found
    ids = [e.id for e in elements]
    transitions = [TransitionRow(draw(st.sampled_from(screens)).id, draw(st.sampled_from(screens)).id,
                                 draw(st.sampled_from(ids)) if ids else "", draw(st.sampled_from(["tap", "input"])))
                   for _ in range(draw(st.integers(0, 12)))]
    return screens, elements, transitions


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(app=apps())
def test_random_apps_summarize_within_bounds(app):
    contexts = build_contexts(*app)
    summaries = DeterministicSummarizer(("settings",)).summarize(contexts)
    assert [s.screen_id for s in summaries] == [c.id for c in contexts]
    for s in summaries:
        again = ScreenSummary.model_validate_json(s.model_dump_json())  # the cache's round trip
        assert again == s and len(s.summary) <= 600
        assert all(len(t.description) <= 400 and all(len(p.description) <= 300 for p in t.parameters)
                   for t in s.subtasks)


@settings(max_examples=30, deadline=None)
@given(text=TEXT.map(lambda t: "a" + t), n=st.integers(0, 150))
def test_an_llm_reply_of_any_length_is_cut_to_the_schema(text, n):
    reply = {"screens": [{"screen_id": "s", "summary": text, "subtasks": [
        {"name": "choose_" + "x" * n, "description": text * n, "parameters": [
            {"name": "choice", "description": "one of " + ", ".join([text] * n)}] * n, "elements": ["e"]}] * n,
        "elements": [{"element_id": "e", "simulated_task": text * (n + 1), "completes": [text] * n}]}]}
    batch = LLMBatch.model_validate(reply)
    assert len(batch.screens[0].subtasks) <= 20 and len(batch.screens[0].elements[0].completes) <= 40


@settings(max_examples=80, deadline=None)
@given(task=TEXT)
def test_any_task_text_parses(task):
    assert isinstance(parse_task(task), ParsedTask)


def test_a_dump_nested_past_any_real_screen_is_named_not_a_recursion_error():
    """The view walk recurses: a dump nested deeper than MAX_DEPTH is refused by name (the CLI's local
    memory has no catch-all for a RecursionError, the API's neither should need one)."""
    from appmem.errors import InputFormatError
    from appmem.formats.uixml import MAX_DEPTH, parse_hierarchy

    node = '<node class="a" package="a.b" bounds="[0,0][1,1]">'
    assert len(parse_hierarchy("<hierarchy>" + node * MAX_DEPTH + "</node>" * MAX_DEPTH + "</hierarchy>",
                               "a.b", "").views) == MAX_DEPTH
    with pytest.raises(InputFormatError, match="nested deeper than"):
        parse_hierarchy("<hierarchy>" + node * 5000 + "</node>" * 5000 + "</hierarchy>", "a.b", "")


# -- end to end on the real stack --------------------------------------------------------------
@pytest.fixture(scope="module")
def stack(store, settings, tmp_path_factory):
    from appmem.semantic.embedder import Embedder
    from appmem.semantic.vectors import VectorStore, open_qdrant

    embedder = Embedder(settings.home, threads=2)
    client = open_qdrant(type(settings)(**{**settings.__dict__, "home": tmp_path_factory.mktemp("qdrant")}))
    yield store, VectorStore(client, embedder.dim), embedder
    client.close()


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                HealthCheck.too_slow, HealthCheck.data_too_large])
@given(states=st.lists(html_states(max_elements=12), min_size=2, max_size=6), choices=st.lists(st.integers(-1, 11)),
       task=TEXT, app=st.integers(0, 10**9))
def test_random_autodroid_apps_import_summarize_and_plan(stack, tmp_path_factory, states, choices, task, app):
    store, vectors, embedder = stack
    from appmem.semantic.pipeline import summarize

    records = []
    for k, html in enumerate(states):
        size = len(parse_html(html))
        choice = choices[k] % size if k < len(choices) and choices[k] >= 0 else -1
        records.append({"State": html, "Choice": choice, "Input": "null", "state_str": "", "new_state_str": ""})
    folder = tmp_path_factory.mktemp("app")
    (folder / "utg.yaml").write_text(yaml.safe_dump({"records": records}), encoding="utf-8")
    package = f"random.app{app}"
    imported = read_autodroid(folder, package)
    ingest_trace(store, imported.trace, 50)
    report = summarize(store, vectors, embedder, DeterministicSummarizer(), [package])
    # two examples may draw the same package: what an earlier one summarised is unchanged, not redone
    assert report.screens_done + report.screens_unchanged == report.screens and not report.errors
    try:
        Planner(store, vectors, embedder).plan(task or "open settings", [package])
    except PlanningError:
        pass  # a clear "no plan" (nothing to act on, an empty task) is an answer, not a crash


def test_an_app_of_odd_content_imports_summarizes_and_plans(stack, tmp_path):
    """Fixed worst cases: every odd character, a 900-character label, a dialog of 300 options, an empty screen."""
    store, vectors, embedder = stack
    from appmem.semantic.pipeline import summarize

    options = "\n".join(f"<checkbox id={k}>Option {k} {'long ' * (k % 7)}</checkbox>" for k in range(300))
    states = [f"<p id=0>Odd {ODD}</p>\n<button id=1 text='{ODD}'>{ODD}<br>{'label ' * 150}</button>\n"
              f"<input id=2>{ODD}</input>\n<button id=3>Options</button>",
              options + "\n<button id=300>OK</button>",
              "<button id=0>go back</button>"]
    records = [{"State": states[0], "Choice": 3, "Input": "null"}, {"State": states[1], "Choice": 300, "Input": "null"},
               {"State": states[2], "Choice": 0, "Input": "null"}, {"State": states[0], "Choice": 2, "Input": ODD}]
    (tmp_path / "utg.yaml").write_text(yaml.safe_dump({"records": records}), encoding="utf-8")
    imported = read_autodroid(tmp_path, "odd.app")
    ingest_trace(store, imported.trace, 50)
    report = summarize(store, vectors, embedder, DeterministicSummarizer(), ["odd.app"])
    assert report.screens_done == report.screens == 3
    plan = Planner(store, vectors, embedder).plan(f"choose option 250 {ODD}", ["odd.app"])
    assert plan.steps


class FailsOnOneScreen(DeterministicSummarizer):
    """A summarizer with a bug that only one screen's content triggers."""

    def screen(self, ctx):
        if any("Trigger" in e.text for e in ctx.elements):
            raise ValueError("a bug")
        return super().screen(ctx)


def test_a_screen_that_cannot_be_summarised_is_named_and_the_run_goes_on(stack, tmp_path):
    store, vectors, embedder = stack
    from appmem.semantic.pipeline import summarize

    states = ["<button id=0>Settings</button>", "<button id=0>Trigger</button>\n<button id=1>Other</button>",
              "<checkbox id=0>Dark theme</checkbox>"]
    records = [{"State": html, "Choice": 0, "Input": "null"} for html in states]
    (tmp_path / "utg.yaml").write_text(yaml.safe_dump({"records": records}), encoding="utf-8")
    imported = read_autodroid(tmp_path, "buggy.app")
    ingest_trace(store, imported.trace, 50)
    report = summarize(store, vectors, embedder, FailsOnOneScreen(), ["buggy.app"], batch_screens=8)
    assert report.screens == 3 and report.screens_done == 2 and len(report.errors) == 1
    assert "buggy.app" in report.errors[0] and "ValueError: a bug" in report.errors[0]
    again = summarize(store, vectors, embedder, DeterministicSummarizer(), ["buggy.app"])
    assert again.screens_done == 1 and again.screens_unchanged == 2 and not again.errors
