"""Hostile cases for the privacy scrubber (formats/privacy.py)."""
from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from appmem.formats.ui import Bounds, UIState, View
from appmem.graph.screens import screen_signature, view_paths
from appmem.formats.privacy import scrub_state, scrub_text

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "datasets"


@pytest.mark.parametrize("text, expected", [
    ("bob@mails.com", "<EMAIL>"),
    ("Mail ALICE.Smith+tag@Sub.Mail.CO.uk now", "Mail <EMAIL> now"),
    ("bob@mails.com<br>Home", "<EMAIL><br>Home"),
    ("josé.müller@exämple.de", "<EMAIL>"),
    ("(bob@mails.com)", "(<EMAIL>)"),
    ("Call +1 (555) 123-4567 now", "Call <PHONE> now"),
    ("555.123.4567", "<PHONE>"),
    ("+44 20 7946 0958", "<PHONE>"),
    ("06 12 34 56 78", "<PHONE>"),
    ("06.12.34.56.78", "<PHONE>"),
    ("12345678900<br>Mobile", "<PHONE><br>Mobile"),
    ("\uff10\uff11\uff12\uff13\uff14\uff15\uff16\uff17", "<PHONE>"),  # full-width digits
    ("222222<br>Mobile", "<NUMBER><br>Mobile"),
    ("Your code is 482913", "Your code is <NUMBER>"),
    ("IBAN-ish 1234567890123456789012345", "IBAN-ish <NUMBER>"),
    ("card 4111 1111 1111 1111", "card <CARD>"),
    ("4111-1111-1111-1111", "<CARD>"),
    ("5500005555555559", "<CARD>"),
    ("https://example.org/reset?token=abc123", "<URL>"),
    ("see https://x.org/a#access_token=zz.", "see <URL>."),
    ("http://user:pw@host.com/p", "<URL>"),
    ("https://drive.example.com/file/1AbCdEfGhIjKlMnOp2q/view", "<URL>"),
    ("www.shop.com/cart;jsessionid=99", "<URL>"),
    ("server 192.168.1.20 up", "server <IP> up"),
    ("Contact us at hello@simplemobiletools.com if", "Contact us at <EMAIL> if"),
])
def test_personal_data_is_replaced(text, expected):
    assert scrub_text(text) == expected


@pytest.mark.parametrize("text", [
    "Delete all events", "Font size 125%", "Snooze 10:30", "July 30 2023", "2023.6.10 Sunny",
    "12-05-1990", "2023-06-10", "5 minutes", "3 columns", "Page 2 of 14", "Version 6.17.3",
    "https://simplemobiletools.com", "www.example.org/help", "", "Use 24-hour time format",
    "<br>", "Alarm 7:00 am", "Zip 75001",
])
def test_static_ui_text_is_kept(text):
    assert scrub_text(text) == text


def test_typed_text_scrubs_short_numbers():
    assert scrub_text("911", typed=True) == "<NUMBER>"
    assert scrub_text("911") == "911"
    assert scrub_text("bob@mails.com", typed=True) == "<EMAIL>"


def test_scrub_is_idempotent():
    text = "bob@mails.com +1 555 123 4567 https://a.b/c?d=e 4111111111111111 222222"
    once = scrub_text(text)
    assert scrub_text(once) == once
    assert not re.search(r"\d{4}", once)


HOSTILE = ["a.", "a-", "a1-", "a.aa", "a@a.", "1 ", "(1", "+1 (", "x:/", "1/1/", "www.", "a://"]


@pytest.mark.parametrize("unit", HOSTILE)
def test_every_pattern_runs_in_time_linear_in_its_text(unit):
    """Eight times the text takes about eight times as long, never sixty-four: a ratio of two timings taken in the
    same run (each the best of five, in CPU time: other processes on the machine do not count), so no
    machine's speed is assumed. The URL pattern's unbounded scheme
    made "a." * 8000 take 0.5 s and twice that 2.1 s."""
    import time

    def best(text: str) -> float:
        times = []
        for _ in range(5):
            started = time.thread_time()
            scrub_text(text)
            times.append(time.thread_time() - started)
        return min(times)

    small, large = unit * (8_000 // len(unit)), unit * (64_000 // len(unit))
    assert best(large) / max(best(small), 1e-4) < 24


def test_a_long_text_is_clipped_at_a_word_and_no_number_is_cut_in_two():
    from appmem.contract.run import RunElement
    from appmem.formats.ui import CLIPPED, TEXT_MAX, clip_text

    assert RunElement.model_fields["text"].metadata[0].max_length == TEXT_MAX  # one limit for a view's text
    assert clip_text("Delete all events") == "Delete all events" and clip_text("x" * TEXT_MAX) == "x" * TEXT_MAX
    words = clip_text("word " * 2000)
    assert len(words) <= TEXT_MAX and words.endswith("word" + CLIPPED)
    phone = "a" * (TEXT_MAX - 10) + " call +1 555 123 4567 now"
    assert clip_text(phone).endswith("call" + CLIPPED) and "555" not in clip_text(phone)
    assert clip_text("a" * 200_000) == CLIPPED  # one word longer than the limit: nothing of it is kept
    mail = "b" * (TEXT_MAX - 6) + " bob@mails.com"
    assert "bob" not in clip_text(mail)


def test_a_view_keeps_no_character_nobody_sees():
    """Control characters and invisible formatting ones (a bidirectional override turns "exe.txt" around on
    screen; zero-width spaces hide words from a reader) are removed from what memory keeps; newlines, tabs
    and the joiners scripts need are kept."""
    from appmem.formats.ui import view_text
    from appmem.formats.uixml import parse_hierarchy

    assert view_text("Save\u202e\u2066 file\u200b\x00\x1b[31m\ufeff") == "Save file[31m"
    assert view_text("two\nlines\tand \u0645\u200c\u06cc \U0001f468\u200d\U0001f469") == \
        "two\nlines\tand \u0645\u200c\u06cc \U0001f468\u200d\U0001f469"
    xml = '<hierarchy><node text="Pay&#x202E;gnp.exe" content-desc="x&#x2067;y" bounds="[0,0][1,1]"/></hierarchy>'
    view = parse_hierarchy(xml, "a.b", ".Main").views[0]
    assert (view.text, view.content_desc) == ("Paygnp.exe", "xy")


def _v(index, parent, children, cls, rid="", text="", desc="", **flags):
    return View(index=index, parent=parent, children=children, class_name=cls, resource_id=rid,
                text=text, content_desc=desc, bounds=Bounds(0, index * 10, 100, index * 10 + 10), **flags)


def contacts_state() -> UIState:
    """A contacts list: a toolbar, a RecyclerView of two contact rows (name,
    number, a 'Call' button), an e-mail in a static header, a password field."""
    views = [
        _v(0, -1, [1, 2, 3, 13, 14], "android.widget.FrameLayout"),
        _v(1, 0, [], "android.widget.TextView", "com.app:id/title", "Contacts"),
        _v(2, 0, [], "android.widget.TextView", "com.app:id/account", "Signed in as bob@mails.com"),
        _v(3, 0, [4, 8], "androidx.recyclerview.widget.RecyclerView", "com.app:id/list", scrollable=True),
        _v(4, 3, [5, 6, 7], "android.widget.LinearLayout", "com.app:id/row", clickable=True),
        _v(5, 4, [], "android.widget.TextView", "com.app:id/name", "Alice Smith"),
        _v(6, 4, [], "android.widget.TextView", "com.app:id/number", "+1 555 123 4567"),
        _v(7, 4, [], "android.widget.ImageButton", "com.app:id/call", desc="Call", clickable=True),
        _v(8, 3, [9, 10, 11], "android.widget.LinearLayout", "com.app:id/row", clickable=True),
        _v(9, 8, [], "android.widget.TextView", "com.app:id/name", "Bob"),
        _v(10, 8, [], "android.widget.TextView", "com.app:id/number", "07700 900123"),
        _v(11, 8, [], "android.widget.ImageButton", "com.app:id/call", desc="Call", clickable=True),
        _v(13, 0, [], "android.widget.EditText", "com.app:id/pin", "hunter2", password=True, editable=True),
        _v(14, 0, [], "android.widget.EditText", "com.app:id/dial", "911", editable=True),
    ]
    return UIState(package="com.app", activity="com.app.Main", views=views, state_id="s1")


def test_scrub_state_replaces_list_items_and_keeps_structure():
    state = contacts_state()
    before = copy.deepcopy(state)
    out = scrub_state(state)
    assert state == before, "the input state must not change"
    texts = {v.index: (v.text, v.content_desc) for v in out.views}
    assert texts[1] == ("Contacts", "")
    assert texts[2] == ("Signed in as <EMAIL>", "")
    assert texts[5] == ("<ITEM>", "") and texts[9] == ("<ITEM>", "")
    assert texts[6] == ("<ITEM>", "") and texts[10] == ("<ITEM>", "")
    assert texts[7] == ("", "Call") and texts[11] == ("", "Call"), "row template labels are kept"
    assert texts[13] == ("<SECRET>", "")
    assert texts[14] == ("<NUMBER>", "")
    assert [(v.index, v.class_name, v.resource_id, v.bounds, v.flags(), v.children) for v in out.views] == \
        [(v.index, v.class_name, v.resource_id, v.bounds, v.flags(), v.children) for v in state.views]
    assert screen_signature(out) == screen_signature(state)
    assert view_paths(out.views) == view_paths(state.views)
    out.views[3].children.append(99)
    assert 99 not in state.views[3].children


def test_framework_menus_and_single_rows_are_kept():
    views = [
        _v(0, -1, [1], "android.widget.FrameLayout"),
        _v(1, 0, [2, 4, 6], "android.widget.ListView"),
        _v(2, 1, [3], "android.widget.LinearLayout", clickable=True),
        _v(3, 2, [], "android.widget.TextView", "android:id/title", "Settings"),
        _v(4, 1, [5], "android.widget.LinearLayout", clickable=True),
        _v(5, 4, [], "android.widget.TextView", "android:id/title", "About"),
        _v(6, 1, [], "android.widget.Button", "com.app:id/footer", "Load more", clickable=True),
    ]
    out = scrub_state(UIState(package="com.app", activity="A", views=views))
    assert [v.text for v in out.views] == [v.text for v in views]


def test_dataset_states_leave_no_email_or_phone():
    """The personal data in the shared DroidTask HTML (contacts with e-mails and
    phone numbers) does not survive scrub_text."""
    folder = SHARED / "droidtask" / "contacts"
    if not folder.exists():
        pytest.skip("shared datasets not present")
    texts = set()
    for task in json.loads((folder / "tasks.json").read_text()):
        for step in task["profile"]:
            texts.update(re.findall(r">([^<]*)<", step["state"]))
    scrubbed = " ".join(scrub_text(t, typed=True) for t in texts)
    assert "@" not in scrubbed.replace("<EMAIL>", "")
    for leaked in ("bob@mails.com", "alice@mails.com", "12345678900", "222222"):
        assert leaked not in scrubbed


def test_autodroid_screens_keep_their_labels():
    """The AutoDroid importer lays non-chrome widgets out under a ListView; they
    are leaf views without ids, not adapter rows, so their labels stay (only
    personal data inside them goes)."""
    from appmem.formats.autodroid_html import parse_html, state_from_elements

    html = ("<button id=0 text='Navigate up'></button>\n<p id=1>Settings</p>\n"
            "<button id=2>Manage event types</button>\n<checkbox id=3 checked=False>Use 24-hour time format OFF</checkbox>\n"
            "<button id=4>Delete all events</button>\n<button id=5>bob@mails.com<br>Home</button>\n"
            "<button id=6>222222<br>Mobile</button>\n<button id=7>go back</button>")
    state = state_from_elements(parse_html(html), "com.app", "com.app.Main")
    texts = [v.text for v in scrub_state(state).views if v.text]
    assert "Manage event types" in texts and "Delete all events" in texts
    assert "<EMAIL>\nHome" in texts and "<NUMBER>\nMobile" in texts
    assert not any("bob@" in t or "222222" in t for t in texts)
