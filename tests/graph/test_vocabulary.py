"""The one vocabulary (graph/vocabulary.py): labels, roles, actions, what "risky" means, bounded text."""
from __future__ import annotations

from appmem.formats.ui import ActionType

from appmem.graph.model import Element
from appmem.graph.vocabulary import clip, is_risky, label_of


def test_risky_is_whole_words_inflected_or_not():
    assert is_risky("Delete all events") and is_risky("Deleting…") and is_risky("Calls") and is_risky("Sign out")
    assert not is_risky("Information") and not is_risky("Callback settings") and not is_risky("Recall")
    assert is_risky("Format SD card", words=("format sd",)) and not is_risky("Date format", words=("format sd",))
    assert is_risky("Settings", extra=("settings",)) and not is_risky("", "")


def test_the_model_reads_labels_roles_and_actions_from_the_vocabulary():
    typed = Element("i", "s", class_name="android.widget.EditText", text="my diary", flags=["editable"])
    assert typed.label == "" == label_of(typed) and typed.role == "input" and typed.action is ActionType.INPUT
    row = Element("r", "s", resource_id="com.app:id/btnDeleteAll_events", flags=["long_clickable"])
    assert row.label == "delete all events" and row.action is ActionType.LONG_TAP
    toggle = Element("t", "s", class_name="android.widget.CheckBox", text="Dark\ntheme", flags=["checkable"])
    assert toggle.label == "Dark / theme" and toggle.role == "toggle" and toggle.action is ActionType.TAP


def test_clip_bounds_and_cleans():
    assert clip("short", 10) == "short"
    long = clip("word " * 100, 50)
    assert len(long) <= 50 and long.endswith("…") and not long.endswith(" …")
    assert clip("a\x00b\ud800c", 10) == "abc"
