"""Summaries of big screens: each screen's facts and each element's label worked out once (work linear in a
screen's elements, counted in calls, not timed), and what a confirming button lists on a screen of hundreds."""
from __future__ import annotations

import pytest

from appmem.graph import vocabulary
from appmem.graph.model import Element
from appmem.semantic import contexts, summaries
from appmem.semantic.contexts import ScreenRow, TransitionRow, build_contexts
from appmem.semantic.summaries import COMPLETES, DeterministicSummarizer


def options_dialog(n: int, label=lambda i: f"Option {i}"):
    """A list screen whose 'Sound' row opens a dialog of `n` choices, an input, a Cancel and an OK."""
    screens = [ScreenRow("list", "app", "1", "Main", "Sounds"), ScreenRow("dialog", "app", "1", "Main", "Pick one")]
    elements = [Element("open", "list", class_name="android.widget.Button", text="Sound", flags=["clickable"])]
    elements += [Element(f"o{i:04d}", "dialog", class_name="android.widget.RadioButton", text=label(i),
                         flags=["checkable", "clickable"]) for i in range(n)]
    elements += [Element("name", "dialog", class_name="android.widget.EditText", resource_id="app:id/sound_name",
                         flags=["editable"]),
                 Element("no", "dialog", class_name="android.widget.Button", text="Cancel", flags=["clickable"]),
                 Element("ok", "dialog", class_name="android.widget.Button", text="OK", flags=["clickable"])]
    return build_contexts(screens, elements, [TransitionRow("list", "dialog", "open")])


def summary_of(ctxs, screen_id="dialog"):
    out = DeterministicSummarizer().summarize(ctxs)
    return {e.element_id: e for s in out if s.screen_id == screen_id for e in s.elements}


@pytest.fixture
def label_calls(monkeypatch):
    """Calls of the label function (through every module that reads labels) while summarising."""
    calls = []

    def counted(e):
        calls.append(e.id)
        return vocabulary.label_of(e)
    for module in (contexts, summaries):
        monkeypatch.setattr(module, "label_of", counted)
    return calls


def test_each_element_is_labelled_a_bounded_number_of_times_whatever_the_screen_size(label_calls):
    per_element = []
    for n in (10, 100, 1000):
        ctxs = options_dialog(n)
        label_calls.clear()
        DeterministicSummarizer().summarize(ctxs)
        per_element.append(len(label_calls) / (n + 4))
    assert max(per_element) <= 3.5, per_element  # the facts, `risky`, a confirm's `field_name`: once each
    assert per_element[-1] <= per_element[0] * 1.1, "the work per element does not grow with the screen"


def test_screen_facts_are_worked_out_once_per_screen():
    ctx = {c.id: c for c in options_dialog(5)}["dialog"]
    facts = ctx.facts
    assert facts is ctx.facts and facts.option_list and facts.confirmed and facts.name == "Sound"
    assert [f.element.id for f in facts.elements] == [e.id for e in ctx.elements]
    assert facts.of_element(ctx.elements[0]) is facts.elements[0]
    stranger = Element("o0000", "x", class_name="android.widget.Button", text="Elsewhere")
    assert facts.of_element(stranger).label == "Elsewhere", "an element of another screen is read, not looked up"


def test_a_confirm_on_a_big_dialog_completes_its_first_options_in_context_order():
    ctxs = options_dialog(300)
    out = summary_of(ctxs)
    ok = out["ok"]
    assert len(ok.completes) == COMPLETES
    # the elements in the context's order (semantic/contexts.py: by their content, never by id)
    dialog = next(c for c in ctxs if c.id == "dialog")
    entries, names = [], []
    for e in dialog.elements:
        if e.id == "name":
            entries.append("Sound: enter the sound name and save")
            names.append("sound name")
        elif e.id.startswith("o"):
            entries += [f"set Sound to '{e.text}'", f"Sound: choose '{e.text}' and save"]
            names.append(e.text)
    assert ok.completes == (["Sound › OK", "Pick one (Sound): save"] + entries)[:COMPLETES]
    assert ok.simulated_task == f"confirm Sound (Pick one): {', '.join(names[:4])} (tap 'OK')"
    assert out["o0299"].simulated_task == "select 'Option 299' in the Sound list, then confirm"
    assert out["name"].parameter.name == "sound_name"
    assert out["no"].simulated_task == "cancel: leave Sound without changes" and not out["no"].completes


def test_a_confirm_lists_a_repeated_name_once_and_never_its_own():
    # every option shows one of three names: the OK's details are those names, each once
    out = summary_of(options_dialog(200, lambda i: ("Low", "High", "OK")[i % 3]))
    ok = out["ok"]
    details = ok.simulated_task.removeprefix("confirm Sound (Pick one): ").removesuffix(" (tap 'OK')")
    assert sorted(details.split(", ")) == ["High", "Low", "sound name"], "confirm words are no detail"
    assert {"set Sound to 'Low'", "Sound: choose 'Low' and save", "set Sound to 'High'"} <= set(ok.completes)
    assert len(ok.completes) == len(set(ok.completes)) == 9  # 3 names x 2 + breadcrumb + title + the input
    # two buttons named alike on a dialog with a choice: each lists the other's name; a name only the button
    # has is not its detail
    screens = [ScreenRow("list", "app", "1", "Main", "Notes"), ScreenRow("ask", "app", "1", "Main", "Delete it?")]
    buttons = [("open", "list", "Note"), ("d1", "ask", "Delete"), ("d2", "ask", "Delete"), ("r", "ask", "Remove")]
    elements = [Element(i, s, class_name="android.widget.Button", text=t, flags=["clickable"]) for i, s, t in buttons]
    elements.append(Element("keep", "ask", class_name="android.widget.CheckBox", text="Keep a copy",
                            flags=["clickable", "checkable"]))
    out = summary_of(build_contexts(screens, elements, [TransitionRow("list", "ask", "open")]), "ask")
    def named(task: str, head: str, tap: str) -> list[str]:  # the details, in the screen's content order
        assert task.startswith(head) and task.endswith(f" (tap '{tap}')"), task
        return sorted(task.removeprefix(head).removesuffix(f" (tap '{tap}')").split(", "))
    assert named(out["d1"].simulated_task, "delete Note (Delete it?): ", "Delete") == ["Delete", "Keep a copy", "Remove"]
    assert named(out["r"].simulated_task, "remove Note (Delete it?): ", "Remove") == ["Delete", "Keep a copy"]
