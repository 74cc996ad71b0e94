"""Deterministic summaries (words from ids, labels, roles, UTG context and breadcrumbs, risk, parameters,
sub-tasks) and the lexical part of the hybrid ranking."""
from __future__ import annotations

import numpy as np
import pytest

from appmem.semantic.lexical import stem, terms
from appmem.semantic.ranking import ElementIndex
from appmem.formats.ui import stable_id
from appmem.graph.model import Element
from appmem.graph.vocabulary import humanize, id_words, label_of, role_of
from appmem.semantic.contexts import ScreenRow, TransitionRow, build_contexts
from appmem.semantic.summaries import DeterministicSummarizer


def el(eid, screen, cls="android.widget.Button", rid="", text="", desc="", flags=("clickable",)):
    return Element(eid, screen, class_name=cls, resource_id=rid, text=text, content_desc=desc, flags=list(flags))


def test_words_from_ids_and_texts():
    assert id_words("com.app:id/btnDeleteAll_events") == "delete all events"
    assert id_words("com.app:id/settings_use_24_hour_format_holder") == "settings use hour format"
    assert humanize("Reminder sound\nDefault (Pixie)") == "Reminder sound / Default (Pixie)"
    assert humanize("<ITEM> <br>Home") == "an item / Home"
    assert label_of(el("a", "s", rid="com.app:id/fabAddEvent")) == "add event"
    assert label_of(el("a", "s", text="", desc="More options")) == "More options"


def test_input_labels_never_use_typed_content():
    typed = el("i", "s", "android.widget.EditText", "", "my secret diary", flags=("editable",))
    hint = el("h", "s", "android.widget.EditText", "", "Search…", flags=("editable",))
    assert role_of(typed) == "input" and label_of(typed) == ""
    assert label_of(hint) == "Search…"


def test_roles():
    assert role_of(el("a", "s", "android.widget.CheckBox", flags=("checkable",))) == "toggle"
    assert role_of(el("a", "s", "android.widget.ScrollView", flags=("scrollable",))) == "scroll"
    assert role_of(el("a", "s", "android.view.View", flags=("long_clickable",))) == "long_tap"


def calendar():
    screens = [ScreenRow("main", "cal", "1", "Main", "Calendar"), ScreenRow("settings", "cal", "1", "Main", "Settings"),
               ScreenRow("confirm", "cal", "1", "Main", "Are you sure you want to delete all events?"),
               ScreenRow("sound", "cal", "1", "Main", "Your sounds")]
    elements = [el("more", "main", desc="More options"), el("set", "main", text="Settings"),
                el("del", "settings", text="Delete all events"),
                el("snd", "settings", text="Reminder sound\nDefault"),
                el("fmt", "settings", "android.widget.CheckBox", text="Use 24-hour time format OFF", flags=("checkable",)),
                el("yes", "confirm", text="YES"), el("no", "confirm", text="NO"),
                el("adara", "sound", "android.widget.CheckBox", text="Adara", flags=("checkable",)),
                el("altair", "sound", "android.widget.CheckBox", text="Altair", flags=("checkable", "checked")),
                el("ok", "sound", text="OK"),
                el("title", "main", "android.widget.EditText", "com.app:id/event_title", flags=("editable",))]
    transitions = [TransitionRow("main", "settings", "set"), TransitionRow("settings", "confirm", "del"),
                   TransitionRow("confirm", "settings", "yes"), TransitionRow("settings", "sound", "snd"),
                   TransitionRow("sound", "settings", "ok")]
    return build_contexts(screens, elements, transitions)


def test_contexts_follow_the_utg():
    ctx = {c.id: c for c in calendar()}
    assert ctx["confirm"].arrivals == ["Delete all events"]
    assert ctx["sound"].arrivals == ["Reminder sound"], "the value part of a label is not its name"
    assert ctx["settings"].arrivals == ["Settings"], "confirming a dialog says nothing about the screen it returns to"
    assert [d.screen_id for d in ctx["settings"].destinations["del"]] == ["confirm"]
    assert ctx["main"].content_hash() != ctx["settings"].content_hash()


def test_simulated_tasks_risk_and_parameters():
    s = DeterministicSummarizer()
    out = {e.element_id: e for c in s.summarize(calendar()) for e in c.elements}
    assert out["yes"].simulated_task.startswith("confirm Delete all events") and out["yes"].risky
    assert out["del"].simulated_task.startswith("Delete all events") and out["del"].risky
    assert not out["no"].risky and not out["set"].risky
    assert out["adara"].simulated_task == "select 'Adara' in the Reminder sound list, then confirm"
    assert "set Reminder sound to 'Adara'" in out["ok"].completes, "a confirmed choice is set by its OK"
    assert out["fmt"].simulated_task.startswith("turn on (enable) 'Use 24-hour time format'")
    assert "Reminder sound: choose 'Adara' and save" in out["ok"].completes
    assert out["title"].parameter and out["title"].parameter.name == "event"
    assert "Settings" in out["set"].simulated_task and "Delete all events" in out["set"].simulated_task
    assert "Settings › Delete all events › YES" in out["yes"].completes, "the way to the dialog, then the button"


def test_a_field_without_a_label_is_named_by_the_text_it_shows():
    screens = [ScreenRow("list", "ct", "1", "Main", "Contacts"), ScreenRow("new", "ct", "1", "Main", "")]
    elements = [el("add", "list", desc="Create new contact"),
                el("surname", "new", "android.widget.EditText", text="Surname", flags=("editable",)),
                el("number", "new", "android.widget.EditText", text="Number", flags=("editable",)),
                el("save", "new", desc="Save")]
    ctx = build_contexts(screens, elements, [TransitionRow("list", "new", "add")])
    out = {e.element_id: e for c in DeterministicSummarizer().summarize(ctx) for e in c.elements}
    assert label_of(elements[1]) == "", "the planner's label of a field never takes its text"
    assert out["surname"].simulated_task == "Create new contact: enter the surname"
    assert "Create new contact: enter the number and save" in out["save"].completes, "a form's Save completes its fields"
    assert "Create new contact › enter Number" in out["number"].completes


def test_breadcrumbs_start_at_entry_screens_and_skip_returns():
    ctx = {c.id: c for c in calendar()}
    assert ctx["main"].paths == [], "nothing leads to the entry screen: confirming returns are not ways in"
    assert ctx["settings"].paths == [["Settings"]]
    assert ctx["confirm"].paths == [["Settings", "Delete all events"]]
    assert ctx["sound"].arrivals == ["Reminder sound"]


def test_lexical_terms_and_the_base_ranking():
    assert terms("Sorting the Events by Title", "sort") == ["event", "sort", "titl"]
    # a singular and its plural, a verb and its forms are one stem; "notes" is not "not"
    assert terms("note", "favorite", "create") == terms("Notes", "Favorites", "created creating")
    assert stem("notes") != stem("not") and stem("minutes") == stem("minute")
    query = np.asarray([1.0, 0.0])
    at = lambda c: [c, float(np.sqrt(1 - c * c))]  # noqa: E731  a unit vector of cosine c with the query
    rows = [(at(0.50), {"element_id": "a", "terms": terms("sort title")}),
            (at(0.52), {"element_id": "b", "terms": terms("sort date")}),
            (at(0.40), {"element_id": "c", "terms": ["theme"]}),
            (at(0.45), {"element_id": "c", "terms": ["theme"], "variant": 1}),
            (at(0.99), {"element_id": "a", "part": "label", "text": "Sort by title"})]
    index = ElementIndex.from_rows(rows, 2)
    ranked = index.search(query.tolist(), "sort by title", k=3)
    assert [h.payload["element_id"] for h in ranked] == ["a", "b", "c"], "the rarer shared word decides close calls"
    assert ranked[2].score == pytest.approx(0.45), "an element scores by its best task row; part rows are not task rows"
    assert index.part_cosines(query, "label")[0] == pytest.approx(0.99)
    assert [round(x, 3) for x in index.overlap("sort by title")] == [1.0, round(np.log(2.5) / (np.log(2.5) + np.log(4)), 3), 0.0]


def test_screen_summaries_and_subtasks():
    s = DeterministicSummarizer()
    screens = {c.screen_id: c for c in s.summarize(calendar())}
    sound = screens["sound"]
    assert sound.summary.startswith("Reminder sound")
    choose = next(t for t in sound.subtasks if t.name == "choose_reminder_sound")
    assert set(choose.elements) == {"adara", "altair"} and choose.parameters[0].name == "choice"
    main = screens["main"]
    fill = next(t for t in main.subtasks if t.name.startswith("fill_"))
    assert fill.parameters[0].name == "event" and fill.elements == ["title"]


def test_extra_risky_words_from_settings():
    ctx = calendar()
    assert not any(e.risky for c in DeterministicSummarizer().summarize(ctx) for e in c.elements
                   if e.element_id == "set")
    assert any(e.risky for c in DeterministicSummarizer(("settings",)).summarize(ctx) for e in c.elements
               if e.element_id == "set")


def test_an_action_button_does_not_complete_the_values_a_page_shows():
    """A Save keeps the settings its screen shows ("Theme / Dark"); a Delete or Share on a contact's
    page acts on the contact, and the values shown there are its content, not entries it completes."""
    screens = [ScreenRow("list", "ct", "1", "Main", "Contacts"), ScreenRow("page", "ct", "1", "Main", ""),
               ScreenRow("colors", "ct", "1", "Main", "")]
    elements = [el("bob", "list", text="Bob"), el("number", "page", text="a number\nMobile"),
                el("delete", "page", desc="Delete"), el("share", "page", desc="Share"),
                el("theme", "list", desc="Customize colors"),
                el("value", "colors", text="Theme\nDark"), el("save", "colors", desc="Save")]
    ctx = build_contexts(screens, elements, [TransitionRow("list", "page", "bob"), TransitionRow("list", "colors", "theme")])
    out = {e.element_id: e for c in DeterministicSummarizer().summarize(ctx) for e in c.elements}
    assert not any("a number" in c for c in out["delete"].completes + out["share"].completes), \
        (out["delete"].completes, out["share"].completes)
    assert "Customize colors: set Theme to 'Dark' and save" in out["save"].completes



def contacts(package: str, call_activity: str = "Call"):
    """A home screen opening a contact list, two contacts' pages, and a call screen that a dialer (another entry)
    opens too, under `package`. Ids hash the package, as the graph's do: a renamed copy of the app has the same
    screens under other ids."""
    def i(name: str) -> str:
        return stable_id(package, name)

    screens = [ScreenRow(i(s), package, "1", f"{package}.{a}", t) for s, a, t in
               [("home", "Home", "Home"), ("list", "Main", "Contacts"), ("alice", "Detail", "Alice"), ("bob", "Detail", "Bob"),
                ("dialer", "Dialer", "Phone"), ("call", call_activity, "")]]
    buttons = [("home", "c", "Contacts"), ("list", "a", "Alice"), ("list", "b", "Bob"), ("alice", "ca", "Call contact"),
               ("bob", "cb", "Call contact"), ("dialer", "d", "Call"), ("call", "end", "End call")]
    elements = [el(i(e), i(s), rid=f"{package}:id/{e}", desc=t) for s, e, t in buttons]
    links = [("home", "list", "c"), ("list", "alice", "a"), ("list", "bob", "b"), ("alice", "call", "ca"),
             ("bob", "call", "cb"), ("dialer", "call", "d"), ("call", "alice", "end")]
    return build_contexts(screens, elements, [TransitionRow(i(a), i(b), i(e)) for a, b, e in links])


def texts_of(contexts) -> list[str]:
    summaries = DeterministicSummarizer().summarize(contexts)
    return [s.summary for s in summaries] + [t for s in summaries for e in s.elements
                                              for t in (e.simulated_task, *e.completes)]


@pytest.mark.parametrize("package", ["com.copy.people", "net.other.book", "a.b"])
def test_a_renamed_copy_of_an_app_says_the_same(package):
    """Contexts are made in an order of what screens show, never of ids: the embedded texts of a copy are the
    original's, so the content-keyed vector cache embeds them once."""
    original, copy = contacts("org.example.contacts"), contacts(package)
    assert texts_of(copy) == texts_of(original)
    assert [(c.arrivals, c.paths) for c in copy] == [(c.arrivals, c.paths) for c in original]


@pytest.mark.parametrize("call_activity", ["Call", "InCall", "Dialer", "Phone", "Voice"])
def test_a_way_back_does_not_name_the_screen_it_returns_to(call_activity):
    # Alice's page is reached as "Contacts › Alice" and as "Call › End call" (two taps from an entry each);
    # ending a call that Alice's page opened returns there: a way back, not what the page is for
    package = "org.example.contacts"
    alice = next(c for c in contacts(package, call_activity) if c.id == stable_id(package, "alice"))
    assert alice.arrivals[0] == "Alice" and alice.paths[0] == ["Contacts", "Alice"]


def test_an_action_button_names_its_screens_other_elements_only_on_a_form():
    """A Delete on a photo's page acts on the photo: its task names none of the page's other buttons
    (a task about favorites must not find it); a Rename on a dialog with a field carries the field out,
    and an OK confirms its whole screen, so both still name what their screen holds."""
    screens = [ScreenRow("grid", "gal", "1", "Main", "Gallery"), ScreenRow("photo", "gal", "1", "Main", "pic1.jpg"),
               ScreenRow("rename", "gal", "1", "Main", "Rename"), ScreenRow("info", "gal", "1", "Main", "")]
    elements = [el("thumb", "grid", text="pic1.jpg"), el("pdel", "photo", desc="Delete"),
                el("fav", "photo", desc="Toggle favorite"), el("share", "photo", desc="Share"),
                el("ren", "photo", desc="Rename"), el("props", "photo", desc="Properties"),
                el("field", "rename", "android.widget.EditText", "com.gal:id/file_name", flags=("editable",)),
                el("rdo", "rename", text="Rename"),
                el("size", "info", text="Size\n61 kB"), el("iok", "info", text="OK")]
    transitions = [TransitionRow("grid", "photo", "thumb"), TransitionRow("photo", "rename", "ren"),
                   TransitionRow("photo", "info", "props")]
    out = {e.element_id: e for c in DeterministicSummarizer().summarize(build_contexts(screens, elements, transitions))
           for e in c.elements}
    task = out["pdel"].simulated_task
    assert task.startswith("delete pic1.jpg") and not any(w in task for w in ("favorite", "Share", "Rename")), task
    assert "file name" in out["rdo"].simulated_task, out["rdo"].simulated_task
    assert "Size" in out["iok"].simulated_task, out["iok"].simulated_task
