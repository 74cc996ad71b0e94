"""Plans and locate over the real graph, vectors and embedding model: DroidTask calendar and contacts,
exploration memory only (utg.yaml: no gold demonstration is in the graph)."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest
import yaml

from appmem.agent.locate import locate, state_from_html, state_from_xml
from appmem.agent.planjson import agent_plan
from appmem.agent.planner import Planner, PlanningError
from appmem.agent.taskparse import parse_task
from appmem.errors import InvalidInput
from appmem.graph.model import Trace
from appmem.ingest.autodroid import package_of
from appmem.ingest.pipeline import ingest_trace
from appmem.semantic.ranking import search_elements
from appmem.semantic.snapshots import SnapshotVectors
from tests.conftest import DROIDTASK
from tests.shared_data import DROIDTASK_EXPLORED, summarized, uses

CALENDAR, CONTACTS = package_of("calendar"), package_of("contacts")


# These tests check the special rules' mechanics: the planner plans with every rule on (tests/agent/conftest.py).
@pytest.fixture(scope="module")
@uses(DROIDTASK_EXPLORED)
def planner(shared_graph, settings, every_rule_on):
    store = shared_graph.hold(DROIDTASK_EXPLORED)
    with summarized(store, settings, [CALENDAR, CONTACTS]) as (vectors, embedder):
        yield Planner(store, vectors, embedder, config=every_rule_on)


def first_screen(app: str, needle: str):
    """The first gold screen of the DroidTask task whose text contains `needle`, as the agent would see it."""
    task = next(t for t in json.loads((DROIDTASK / app / "tasks.json").read_text()) if needle in t["task"])
    return state_from_html(task["profile"][0]["state"], package_of(app))


def plan_dict(plan) -> dict:
    return agent_plan(plan).model_dump()


def steps(plan) -> list[tuple[str, str, str]]:
    return [(s["action"], (s["element"] or {}).get("label", ""), s["input"]) for s in plan_dict(plan)["steps"]]


def test_the_in_memory_index_ranks_as_the_vector_store_does(planner):
    """The planner's cached index and a one-off search are the one scorer (semantic/ranking.py): same results."""
    index = planner.index([CALENDAR])
    for task in ("delete all events", "change the theme to dark and save it", "add an event named Lunch at 12:30"):
        vector = planner.embedder.query(task)
        mine = index.search(vector, task, 10)
        theirs = search_elements(planner.vectors, vector, task, 10, [CALENDAR])
        assert [round(h.score, 4) for h in mine] == [round(h.score, 4) for h in theirs]
        assert {h.payload["element_id"] for h in mine[:5]} == {h.payload["element_id"] for h in theirs[:5]} or \
            round(mine[4].score, 4) == round(mine[5].score, 4)  # exact ties may come in another order


def test_a_planner_on_the_read_only_snapshots_plans_the_same(planner, settings):
    """Serve workers plan from the snapshots (no Qdrant folder lock): same index, same plans, one app read."""
    reader = SnapshotVectors(settings.snapshot_path, planner.embedder.dim)
    other = Planner(planner.store, reader, planner.embedder, config=planner.config)
    assert other.index([CALENDAR]).payloads == planner.index([CALENDAR]).payloads
    assert reader.files_read == [CALENDAR]
    for task in ("delete all events", "change the theme to dark and save it", "add a contact named Bob"):
        app = CONTACTS if "contact" in task else CALENDAR
        assert plan_dict(other.plan(task, [app])) == plan_dict(planner.plan(task, [app]))
    assert reader.files_read == [CALENDAR, CONTACTS]


def test_plan_json_follows_the_contract(planner):
    plan = plan_dict(planner.plan("delete all events", [CALENDAR]))
    assert {"task", "package", "source", "route", "llm_calls", "start", "steps", "alternatives"} <= plan.keys()
    assert (plan["source"], plan["route"], plan["llm_calls"], plan["start"]["match"]) == ("memory", "found", 0, "entry")
    assert [s["element"]["label"] for s in plan["steps"]][-2:] == ["Delete all events", "YES"]
    assert [s["risky"] for s in plan["steps"]][-2:] == [True, True]
    for step in plan["steps"]:
        assert {"action", "element", "input", "slot", "screen_id", "to_screen", "risky", "confidence"} <= step.keys()
        assert step["element"]["locators"] and 0 < step["confidence"] <= 1 and step["to_screen"]
    assert plan["steps"][0]["element"]["html"] == "<button text='More options'></button>"


def test_multi_goal_task_fills_chooses_and_saves(planner):
    """Title, then the repetition option in its dialog, then back on the form: Save."""
    task = "create an event of 'homework' with daily repetition and save it"
    plan = planner.plan(task, [CALENDAR], first_screen("calendar", "daily repetition"))
    got = steps(plan)
    assert got[0][:2] == ("tap", "New Event")
    assert ("input", "homework") in [(a, i) for a, _, i in got]
    assert [label for _, label, _ in got][-3:] == ["No repetition", "Daily", "Save"]
    assert plan.start["match"] == "exact"


def test_a_plan_ends_at_its_goal(planner):
    """A task with a second goal is planned to the goal the memory ranks first and ends there: nothing is
    added after it (a step beyond the goal is one the task's first goal did not ask for)."""
    whys = [s.why for s in planner.plan("open settings and then open the about screen", [CONTACTS]).steps]
    moves = next(k for k, why in enumerate(whys) if why != "route")
    assert set(whys[:moves]) == {"route"} and whys[moves:] and set(whys[moves:]) <= {"target", "value", "confirm"}
    assert whys.count("target") <= 1 and "route" not in whys[moves:], whys


def test_an_item_task_selects_the_named_row_as_a_slot(planner):
    start = first_screen("contacts", "Delete contact Bob")
    plan = plan_dict(planner.plan("Delete the contact 'Bob'", [CONTACTS], start))
    item = plan["steps"][0]
    assert (item["slot"], item["input"], item["element"]["text"]) == ("item", "Bob", "Bob")
    assert item["element"]["locators"][0] == "//*[@text='Bob']"
    assert plan["steps"][-1]["risky"] and "Delete" in [s["element"]["label"] for s in plan["steps"]]


def test_a_two_value_form_gets_each_value_in_the_field_it_fits(planner):
    """Each value the task names is typed once, exactly as said, into the field it fits; the form is saved."""
    task = "Create a new contact named 'Stephen', mobile number 12345678900"
    plan = plan_dict(planner.plan(task, [CONTACTS], first_screen("contacts", "Stephen Bob")))
    typed = [(s["element"]["text"], s["input"]) for s in plan["steps"] if s["action"] == "input"]
    assert typed == [("First name", "Stephen"), ("Number", "12345678900")], typed
    assert plan["steps"][-1]["element"]["label"] == "Save" and plan["steps"][-1]["why"] == "confirm"


def test_no_route_says_so_with_the_best_targets(planner, store):
    """A screen the memory holds but from which no recorded transition leads anywhere."""
    html = "<p id=0>Isolated screen</p>\n<button id=1 text='Nowhere icon'></button>"
    state = state_from_html(html, CALENDAR)
    trace = Trace(id="isolated-screen-trace", source="test", package=CALENDAR, app_version="unknown", device="t",
                  explorer="t", started="", ended="", states={state.state_id: state})
    ingest_trace(store, trace, chunk_size=100)
    planner.forget()
    dead_end = locate(store, CALENDAR, state)
    assert dead_end["match"] == "exact"
    plan = plan_dict(planner.plan("delete all events", [CALENDAR], dead_end["screen_id"]))
    assert (plan["route"], plan["source"], plan["steps"]) == ("none", "none", [])
    assert plan["alternatives"] and all({"screen_id", "label", "score"} <= a.keys() for a in plan["alternatives"])


def test_locate_exact_similar_unknown(planner, store):
    records = yaml.safe_load((DROIDTASK / "calendar" / "utg.yaml").read_text())["records"]
    html = records[0]["State"]
    exact = locate(store, CALENDAR, state_from_html(html, CALENDAR))
    assert exact["match"] == "exact" and exact["score"] == 1.0
    lines = html.strip().splitlines()
    changed = "\n".join(lines[:-2] + ["<button id=900 text='Some new icon'></button>"] + lines[-1:])
    similar = locate(store, CALENDAR, state_from_html(changed, CALENDAR))
    assert similar["match"] == "similar" and 0.5 <= similar["score"] < 1
    stranger = "<p id=0>Nothing like it</p>\n<input id=1>Your unrelated text</input>\n<checkbox id=2>Other</checkbox>"
    unknown = locate(store, CALENDAR, state_from_html(stranger, CALENDAR))
    assert unknown["match"] == "unknown" and unknown["screen_id"] is None and unknown["candidates"]
    xml = ("<hierarchy rotation='0'><node index='0' text='' resource-id='' class='android.widget.FrameLayout' "
           "package='com.x' content-desc='' checkable='false' checked='false' clickable='true' enabled='true' "
           "focusable='false' focused='false' scrollable='false' long-clickable='false' password='false' "
           "selected='false' bounds='[0,0][100,100]' /></hierarchy>")
    assert locate(store, CALENDAR, state_from_xml(xml, CALENDAR))["match"] == "unknown"


def test_bad_requests_get_clear_errors(planner):
    with pytest.raises(InvalidInput, match="empty"):
        planner.plan("   ", [CALENDAR])
    with pytest.raises(PlanningError, match="no element memory"):
        planner.plan("delete all events", ["com.example.unknown"])
    with pytest.raises(PlanningError, match="unknown start screen"):
        planner.plan("delete all events", [CALENDAR], "no-such-screen")


@pytest.mark.parametrize("task, values, old", [
    ("Change Bob's mobile number from '222222' to '12345678900'", [("12345678900", "new")], ["222222"]),
    ("Create a new contact Stephen Bob, mobile number 12345678900", [("12345678900", "phone")], []),
    ("set bitrate to 96 kbps", [("96 kbps", "size")], []),
    ("turn on the '7:00 am' alarm", [("7:00 am", "quoted")], []),
    ("Adjust the font size of the Notes app to 125%", [("125%", "percent")], []),
    ("create a new event named Dentist", [("Dentist", "named")], []),
    ("type 'milk', then tap 'Add item'", [("milk", "quoted")], []),  # a touched label is no text to type
])
def test_task_values(task, values, old, every_rule_on):
    parsed = parse_task(task, every_rule_on)
    assert [(v.text, v.kind) for v in parsed.values] == values and parsed.old == old


def test_plan_from_a_dumped_screen_without_app_chooses_the_app_then_locates(planner):
    """`appmem plan --screen-html F` without --app: the app is chosen, then the screen located in it."""
    from appmem.agent.apps import app_for_screen
    from appmem.agent.recall import Recall

    task = json.loads((DROIDTASK / "contacts" / "tasks.json").read_text())[0]
    html = task["profile"][0]["state"]
    recall = Recall(planner.store, planner.vectors, planner.embedder, planner)
    located = lambda package, state: locate(planner.store, package, state, planner.graph([package]))  # noqa: E731
    # a task both apps could do ("settings"): the screen decides
    choice = app_for_screen(recall, located, "open the settings", lambda p: state_from_html(html, p))
    assert choice.package == CONTACTS and choice.by == "screen"
    plan = plan_dict(planner.plan("open the settings", [choice.package], state_from_html(html, CONTACTS)))
    assert plan["package"] == CONTACTS and plan["start"]["match"] in ("exact", "similar")


def test_a_confirm_button_ranks_right_before_the_element_that_opens_its_screen(planner):
    """Stage 3 of semantic/ranking.py: asked for what an opener does, the confirm of the screen it opens
    scores just above it when its own words score lower (the task ends on it); with `follow` off it scores
    on its own."""
    import appmem.semantic.ranking as ranking
    from appmem.graph.vocabulary import CONFIRM_WORDS

    index = planner.index([CALENDAR])
    first = [index.payloads[r] for r in index.starts]
    pairs = [(first[i], [first[o] for o in openers]) for i, openers in index.follows]
    assert pairs and all(c["label"].strip().lower() in CONFIRM_WORDS and c["role"] == "tap" for c, _ in pairs)

    def scores(task, follow):
        config = replace(index.config, follow=follow)
        return {h.payload["element_id"]: h.score
                for h in index.search(planner.embedder.query(task), task, len(index), config)}

    raised = 0
    for confirm, openers in pairs:
        opener = max(openers, key=lambda x: len(x["label"]))
        task = f"{opener['label']}: {opener['simulated_task']}"
        on, off = scores(task, True), scores(task, False)
        best_opener = max(on[x["element_id"]] for x in openers)
        assert on[confirm["element_id"]] >= max(off[confirm["element_id"]], best_opener + ranking.FOLLOW_GAP) - 1e-5
        raised += on[confirm["element_id"]] > off[confirm["element_id"]] + 1e-6
    assert raised


def test_a_quoted_label_is_the_target_word_for_word(planner):
    """`tap 'LABEL'` taps the element labelled LABEL, for the uniquely labelled buttons of the app, including
    those the meaning ranking puts below look-alikes (the rule switched off, fewer do)."""
    from appmem.agent.screenwork import label, role

    graph = planner.graph([CALENDAR])
    labels = [label(e) for e in graph.elements.values() if role(e) == "tap" and label(e).strip()]
    unique = sorted({x for x in labels if labels.count(x) == 1 and "'" not in x and any(c.isalpha() for c in x)})[:25]
    assert len(unique) >= 10

    def taps_label(config=None) -> int:
        return sum(any(s.element is not None and label(s.element) == x for s in p.steps)
                   for x in unique for p in [planner.plan(f"tap '{x}'", [CALENDAR], config=config)])

    plans = {x: planner.plan(f"tap '{x}'", [CALENDAR]) for x in unique}
    # the named control is the whole task: nothing (a confirm, a form's work) comes after it
    assert all(p.steps[-1].element is not None and label(p.steps[-1].element) == x for x, p in plans.items()
               if any(s.element is not None and label(s.element) == x for s in p.steps))
    with_rule = taps_label()
    # a quoted control memory cannot reach (from the entries, or once the run's failed steps are avoided) is no
    # reason to end on another element: the runtime would take that plan's last tap for the task done
    cut = 0
    for x, plan in plans.items():
        avoid: list[dict] = []
        while plan.route != "none" and len(avoid) < 12:
            assert label(plan.steps[-1].element) == x, (x, [s.element and label(s.element) for s in plan.steps])
            first = plan.steps[0]
            avoid.append({"screen_id": first.screen_id, "action": first.action.value,
                          "element_id": first.element.id if first.element is not None else "", "detail": ""})
            plan = planner.plan(f"tap '{x}'", [CALENDAR], avoid=avoid)
        cut += plan.route == "none"
    assert cut >= len(unique) // 2, cut
    # a control memory has under no such label is no plan either, unless one says the quote's very words
    assert planner.plan("tap 'Frobnicate the widget'", [CALENDAR]).route == "none"
    reached_ = [x for x, p in plans.items() if p.steps and label(p.steps[-1].element) == x]
    assert all(label(planner.plan(f"tap '{x}!'", [CALENDAR]).steps[-1].element) == x for x in reached_[:5])
    assert with_rule > taps_label(replace(planner.config, quoted_label=False))
    assert with_rule >= len(unique) - 2, with_rule  # a label no route reaches from the entries stays out of reach


def test_a_quote_in_the_apps_own_case_names_only_the_element_shown_in_that_case(planner):
    """A quote names a label word for word, case aside ("tap 'save'" taps Save), unless the app shows the
    quoted text in the task's very case: then only that element is named (the list row 'clear', not the
    button CLEAR beside it)."""
    from appmem.agent.screenwork import label, role

    parsed = parse_task("tap 'clear' in org.example.app")
    assert parsed.quotes("CLEAR") and parsed.quotes("clear")
    parsed.with_case_of(["CLEAR", "clear", "share this"])
    assert parsed.cased and parsed.quotes("clear") and not parsed.quotes("CLEAR")
    assert not parse_task("tap 'clear'").with_case_of(["CLEAR", "Clear all"]).cased
    # on the memory: a quote in another case than the app shows still names the control
    graph = planner.graph([CALENDAR])
    labels = [label(e) for e in graph.elements.values() if role(e) == "tap" and label(e).strip()]
    unique = sorted({x for x in labels if labels.count(x) == 1 and "'" not in x and x.swapcase() not in labels
                     and any(c.isalpha() for c in x)})

    def last_label(task: str) -> str | None:
        steps = planner.plan(task, [CALENDAR]).steps  # none when memory has no route to the quoted control
        return label(steps[-1].element) if steps and steps[-1].element is not None else None

    named = [x for x in unique[:25] if last_label(f"tap '{x}'") == x][:5]
    assert named and all(last_label(f"tap '{x.swapcase()}'") == x for x in named)


def test_a_target_never_seen_to_open_anything_opens_what_its_twin_opened(planner):
    """compose rule `twin_effect`: one control on look-alike screens (same label, resource id and role)
    does the same thing; the exploration saw the effect on one of them only. Finishing on the other,
    the plan goes into the dialog its twin opened and confirms it when the task changed something."""
    import appmem.agent.compose as compose
    from appmem.agent.screenwork import confirm, label, role

    graph = planner.graph([CONTACTS])
    c = compose.Composer(graph, parse_task("delete it"), planner.config)
    pairs = [(e, c.twin_opens(e)) for e in graph.elements.values() if graph.opens(e) is None and label(e)]
    pairs = [(e, opened) for e, opened in pairs if opened]
    assert pairs, "the contacts exploration has controls whose effect it saw on a twin only"
    for e, opened in pairs:  # what it opens is what a twin of it was seen to open
        assert any(t.id != e.id and graph.opens(t) == opened and
                   (label(t), t.resource_id, role(t)) == (label(e), e.resource_id, role(e)) for t in graph.elements.values())
    with_dialog = [(e, opened) for e, opened in pairs
                   if role(e) == "tap" and confirm(graph.screen_elements(opened), set()) is not None]
    assert with_dialog
    e, opened = with_dialog[0]
    c = compose.Composer(graph, parse_task(f"{label(e)} it"), planner.config)
    c.finish(e)
    assert c.steps[0].element.id == e.id and c.steps[0].to_screen == opened
    assert compose.Composer(graph, parse_task("x"), replace(planner.config, twin_effect=False)).twin_opens(e) is None


def test_a_file_name_goes_to_the_name_field_without_the_extension_the_form_adds(planner):
    """screenwork rule `file_name`: the export dialog proposes a name without extension
    ("contacts_2023_…"), so the app adds ".vcf" itself: the plan types the name only. A Save-as form
    with a folder path, a name and an extension field gets the name in the name field."""
    import appmem.agent.screenwork as screenwork
    from appmem.graph.model import Element

    task = "export contacts to a .vcf file named 'friends.vcf'"
    typed = lambda config=None: [i for a, _, i in steps(planner.plan(task, [CONTACTS], config=config))  # noqa: E731
                                 if a == "input"]
    assert typed() == ["friends"]
    form = [Element(f"f{k}", "s", class_name="android.widget.EditText", text=text, flags=["editable"], key=f"/f{k}")
            for k, text in enumerate(("Internal/DCIM/", "pic3", "jpg"))]
    parsed = parse_task("save it as pic4.jpg")
    fill = lambda config: [(e.text, value) for e, value, _ in screenwork.fields(form, parsed, set(), config)]  # noqa: E731
    assert fill(planner.config) == [("pic3", "pic4")]
    off = replace(planner.config, file_name=False)
    assert typed(off) == ["friends.vcf"] and fill(off) == [("Internal/DCIM/", "pic4.jpg")]


def test_the_named_folder_is_picked_before_the_dialogs_ok(planner):
    """compose rules `buttons_not_rows` and `item_then_target`: AutoDroid's HTML gives a folder dialog's
    OK the rows' container and class; it is no row, so it stays a target, and the folder the task
    names, on the OK's screen, is picked first (a slot step showing the whole row)."""
    task = "export the events to an .ics file in the folder 'DCIM'"
    got = plan_dict(planner.plan(task, [CALENDAR]))["steps"]
    assert got[-1]["element"]["label"] == "OK" and got[-2]["slot"] == "item" and got[-2]["input"] == "DCIM"
    assert got[-2]["element"]["text"].startswith("DCIM\n")  # rule whole_row: what the row shows, as recorded
    off = replace(planner.config, item_then_target=False)
    assert not any(s["slot"] == "item" for s in plan_dict(planner.plan(task, [CALENDAR], config=off))["steps"])


def test_a_row_never_seen_tapped_leads_where_its_list_rows_led(planner):
    """compose rule `sibling_effect`: the country row was never seen tapped; the plan expects it to lead where
    the other rows of its list led (a choice list closes), and takes no other country on the way."""
    task = "add the holidays of India"
    graph = planner.graph([CALENDAR])
    plan = planner.plan(task, [CALENDAR])
    india = plan.steps[-1]
    assert india.element.text == "India" and graph.opens(india.element) is None
    rows = {e.id for e in graph.screen_elements(india.screen_id) if e.class_name == india.element.class_name}
    assert [s.element.id for s in plan.steps if s.element.id in rows] == [india.element.id]
    assert india.to_screen == graph.sibling_opens(india.element) != india.screen_id
    off = replace(planner.config, sibling_effect=False)
    assert planner.plan(task, [CALENDAR], config=off).steps[-1].to_screen != india.to_screen


def test_of_controls_leading_to_the_same_screen_the_hop_takes_the_one_the_task_names(planner):
    """compose rule `named_way`: the route search sees only cost; among the edges from one screen to the
    same next screen the plan takes the control whose label the task says."""
    import appmem.agent.compose as compose
    from appmem.agent.screenwork import label

    graph = planner.graph([CONTACTS])
    pairs = [(a, b) for edges in graph.edges.values() for a in edges for b in edges
             if a.target == b.target and a.action == b.action == "tap" and a.element_id != b.element_id
             and label(graph.elements[a.element_id]) and label(graph.elements[b.element_id])
             and not set(label(graph.elements[a.element_id]).lower().split())
             & set(label(graph.elements[b.element_id]).lower().split())]
    assert pairs, "the contacts exploration has two controls leading from one screen to the same next one"
    a, b = pairs[0]
    parsed = parse_task(f"open {label(graph.elements[b.element_id])}")
    composer = compose.Composer(graph, parsed, planner.config)
    assert composer.named(a) == b and composer.named(b) == b
    assert compose.Composer(graph, parsed, replace(planner.config, named_way=False)).named(a) == a


def test_a_form_is_filled_top_to_bottom(planner):
    """The options and fields the task names on one screen are done in the screen's order, top to
    bottom, as a person fills a form (before: every option, then every field)."""
    from appmem.agent.compose import Composer
    from appmem.agent.screenwork import is_confirm, label, role

    graph = planner.graph([CALENDAR, CONTACTS])
    forms = []
    for screen in graph.on_screen:
        elements = graph.screen_elements(screen)
        inputs = [e for e in elements if role(e) == "input" and label(e)]
        toggles = [e for e in elements if role(e) == "toggle" and label(e)]
        if any(is_confirm(e) for e in elements) and inputs and toggles:
            forms.append((screen, inputs, toggles))
    assert forms, "the memory has a form with a named field and a choice"
    checked = 0
    for screen, inputs, toggles in forms:
        field, option = inputs[0], toggles[-1]
        composer = Composer(graph, parse_task(f"choose {label(option)} and type 'Zed' as the {label(field)}"),
                            planner.config)
        composer.work(screen)
        done = [s.element for s in composer.steps]
        if {field.id, option.id} <= {e.id for e in done}:
            tops = [(e.bounds.top, e.bounds.left) for e in done]
            assert tops == sorted(tops), [(label(e), e.bounds) for e in done]
            checked += 1
    assert checked


def test_a_look_alike_screen_of_another_app_lends_the_confirm_it_lacks(planner):
    """compose rule `crowd_twins` (agent/crowd.py): contacts' exploration never changed a colour, so its
    "Customize colors" screen never showed the Save that calendar's did (same title, same controls).
    Calendar's Save is lent to contacts' screen, with locators that hold in any app (none by position),
    and a plan that changes the theme there commits it."""
    from appmem.agent.screenwork import label

    graph = planner.graph([CONTACTS])
    lent = {graph.screens[s]["title"]: [label(e) for e in els] for s, els in graph.lent.items()}
    assert lent.get("Customize colors") == ["Save"], lent
    for screen, elements in graph.lent.items():
        assert screen in graph.on_screen and all(e.screen_id == screen and e.id not in graph.elements for e in elements)
        assert all(e.locators and all(x.startswith("//") for x in e.locators) for e in elements)
    assert not planner.graph([CALENDAR]).lent.get(next(s for s, els in graph.lent.items())), "calendar lends, not borrows"
    task = "use the light theme"
    labels = [label(s.element) for s in planner.plan(task, [CONTACTS]).steps]
    assert labels[-2:] == ["Light", "Save"], labels
    off = replace(planner.config, crowd_twins=False)
    assert [label(s.element) for s in planner.plan(task, [CONTACTS], config=off).steps][-1] == "Light"


def test_a_choice_closes_its_dialog_and_the_form_it_lands_on_commits_it(planner):
    """compose rules `choice_closes` and `commit_landing`: a choice never seen taken, on a dialog without a
    confirm, closes it to where leaving the dialog went (contacts' theme list → "Customize colors"); a
    choice that closed its dialog onto a form with a confirm is committed by it (calendar's own Save)."""
    from appmem.agent.screenwork import label

    plan = planner.plan("use the light theme", [CONTACTS])
    light = plan.steps[-2]
    graph = planner.graph([CONTACTS])
    assert label(light.element) == "Light" and graph.opens(light.element) is None
    assert light.to_screen == graph.back_of(light.element.screen_id) != light.element.screen_id
    assert graph.screens[light.to_screen]["title"] == "Customize colors"
    labels = [label(s.element) for s in planner.plan("use the light theme", [CALENDAR]).steps]
    assert labels[-2:] == ["Light", "Save"], labels
    off = replace(planner.config, commit_landing=False)
    assert [label(s.element) for s in planner.plan("use the light theme", [CALENDAR], config=off).steps][-1] == "Light"
    off = replace(off, choice_closes=False)
    assert planner.plan("use the light theme", [CONTACTS], config=off).steps[-1].to_screen == light.element.screen_id


def test_a_route_may_pass_the_control_the_task_names_before_its_goal(planner):
    """compose rule `named_way`: beside the cheapest route to a target, the planner tries the routes through
    a control the task names before it names the target (a dialog two controls open looks the same to
    the memory, so the cheapest way may take the other control); none passes a screen twice."""
    from appmem.agent.screenwork import label
    from appmem.agent.candidate_routes import named_routes, named_taps

    graph = planner.graph([CONTACTS])
    entry = graph.entries[0]
    hops = [e for edges in graph.edges.values() for e in edges if e.action == "tap" and e.target != e.source
            and label(graph.elements[e.element_id]).isalpha()]

    def once(hop, target) -> bool:  # a way through `hop` to `target` that passes no screen twice
        to_hop, from_hop = graph.route(entry, hop.source), graph.route(hop.target, target.screen_id)
        way = None if to_hop is None or from_hop is None else to_hop + [hop] + from_hop
        return way is not None and len({entry, *(e.target for e in way)}) == len(way) + 1

    found = None
    for target in (e for e in graph.elements.values() if label(e).isalpha()):
        route = graph.route(entry, target.screen_id)
        found = route and next(((target, hop, route) for hop in hops if hop not in route
                                and label(graph.elements[hop.element_id]) != label(target) and once(hop, target)), None)
        if found:
            break
    assert found, "the contacts exploration reaches some screen by two ways"
    target, hop, route = found
    way, goal = label(graph.elements[hop.element_id]), label(target)
    parsed = parse_task(f"{way} and then {goal}")
    named = named_taps(graph, parsed, planner.config)
    assert hop in named
    found = named_routes(graph, parsed, entry, target, route, set(), named)
    assert any(hop in w for w in found)
    for w in found:
        assert len({entry, *(e.target for e in w)}) == len(w) + 1 and w[-1].target == target.screen_id
    assert not named_routes(graph, parse_task(f"{goal} and then {way}"), entry, target, route, set(), [hop])
    assert named_taps(graph, parsed, replace(planner.config, named_way=False)) == []
