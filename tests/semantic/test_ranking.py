"""Stage 4 of the one element scorer (semantic/ranking.py) on the real stack: the DroidTask
calendar and contacts exploration memory, summarised, embedded with the real model."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import appmem.semantic.ranking as ranking
from appmem.graph.vocabulary import CONFIRM_WORDS
from appmem.ingest.autodroid import package_of
from appmem.planconfig import RankingConfig
from appmem.semantic.lexical import last_clause, terms
from appmem.semantic import confirm_order
from appmem.semantic.ranking import ElementIndex
from tests.shared_data import DROIDTASK_EXPLORED, summarized, uses

CALENDAR, CONTACTS = package_of("calendar"), package_of("contacts")
DEFAULT = RankingConfig()


@pytest.fixture(scope="module")
@uses(DROIDTASK_EXPLORED)
def memory(shared_graph, settings):
    with summarized(shared_graph.hold(DROIDTASK_EXPLORED), settings, [CALENDAR, CONTACTS]) as memory:
        yield memory


def test_a_confirm_ranks_right_before_the_best_entry_of_its_form(memory):
    """Asked to type into a field or make a choice, the Save or OK of its screen scores just above it
    (the task ends on it); with `commit` off it scores on its own words. Stage 3 is off here, so that
    what moves is stage 4's doing; so are the dialogs' entries (their own test is below)."""
    vectors, embedder = memory
    config = replace(DEFAULT, follow=False, dialogs=False)
    index = ElementIndex.load(vectors, [CALENDAR, CONTACTS], config=config)
    first = [index.payloads[r] for r in index.starts]
    confirms, entries, starts = index._commit_arrays(config)
    assert len(confirms), "the memory has forms: a confirm and entries on one screen"
    for i in confirms.tolist():
        assert first[i]["role"] == "tap" and first[i]["label"].strip().lower() in CONFIRM_WORDS

    def scores(task, commit):
        ranked = index.search(embedder.query(task), task, len(index), replace(config, commit=commit))
        return {h.payload["element_id"]: h.score for h in ranked}

    raised = 0
    for k, i in enumerate(confirms.tolist()):
        mine = entries[starts[k]:starts[k + 1] if k + 1 < len(starts) else len(entries)].tolist()
        assert mine and all(first[f]["role"] in config.entries and first[f]["screen_id"] == first[i]["screen_id"]
                            for f in mine)
        task = first[mine[0]]["simulated_task"]
        on, off = scores(task, True), scores(task, False)
        confirm = first[i]["element_id"]
        best_entry = max(on[first[f]["element_id"]] for f in mine)
        assert on[confirm] >= max(off[confirm], best_entry + ranking.FOLLOW_GAP) - 1e-5
        raised += on[confirm] > off[confirm] + 1e-6
        others = [first[j]["element_id"] for j in range(len(first)) if j != i]
        assert all(on[e] == pytest.approx(off[e]) for e in others if e not in {first[c]["element_id"] for c in confirms})
    assert raised, "some entry outranks its form's confirm on its own words"


def scores_on_off(index: ElementIndex, switch: str, vector, task: str) -> tuple[dict, dict]:
    """Every element's score for `task` with the ranking's `switch` on, then off (the index's other options)."""
    scores = {}
    for on in (True, False):
        ranked = index.search(vector, task, len(index), replace(index.config, **{switch: on}))
        scores[on] = {h.payload["element_id"]: h.score for h in ranked}
    return scores[True], scores[False]


def _pairs(index: ElementIndex, config: RankingConfig) -> set[tuple[int, int]]:
    confirms, entries, starts = index._commit_arrays(config)
    ends = list(starts[1:]) + [len(entries)]
    return {(c, e) for c, s, t in zip(confirms.tolist(), starts.tolist(), ends) for e in entries[s:t].tolist()}


def test_a_form_confirm_commits_the_choice_made_in_a_dialog_it_opens(memory):
    """With `dialogs` on, a form's Save also commits the entries of the dialogs its other elements open
    (New Event's repetition list, Edit contact's phone type; or their twins open), and beats those dialogs'
    own confirms (they only take the choice back to the form): asked for such a choice, the Save scores
    just above it. A confirm's own way back opens no dialog of it, and nothing else moves."""
    vectors, embedder = memory
    config = replace(DEFAULT, follow=False, dialogs=True)
    index = ElementIndex.load(vectors, [CALENDAR, CONTACTS], config=config)
    first = [index.payloads[r] for r in index.starts]
    own = _pairs(index, replace(config, dialogs=False))
    extra = _pairs(index, config) - own
    assert own <= _pairs(index, config) and extra, "forms whose fields open dialogs of choices"
    opened = index._effects(config.twins)  # what each element, or its twin, was seen to open
    for confirm, entry in extra:
        screen = first[entry]["screen_id"]
        assert screen != first[confirm]["screen_id"]
        assert any(screen in opened[j] for j, p in enumerate(first)
                   if p["screen_id"] == first[confirm]["screen_id"] and not confirm_order.confirm(p))
    labels = {first[e]["label"] for _, e in extra} | {first[c]["label"] for c, _ in extra}
    assert {"Daily", "Mobile", "Save"} <= labels
    of_dialogs = [(c, e) for c, e in sorted(extra) if confirm_order.confirm(first[e])]
    assert of_dialogs, "dialogs of choices with a confirm of their own"
    lifted = 0
    for confirm, entry in sorted(extra)[:12] + of_dialogs[:4]:
        task = first[entry]["simulated_task"]
        vector = embedder.query(task)
        on, off = scores_on_off(index, "dialogs", vector, task)
        assert on[first[confirm]["element_id"]] >= on[first[entry]["element_id"]] + ranking.FOLLOW_GAP - 1e-5
        lifted += on[first[confirm]["element_id"]] > off[first[confirm]["element_id"]] + 1e-6
        confirms = {first[c]["element_id"] for c, _ in _pairs(index, config)}
        assert all(on[e] == pytest.approx(off[e]) for e in on if e not in confirms)
    assert lifted, "a dialog's choice outranks the form's Save on its own words"


def test_a_confirm_of_a_screen_without_entries_is_left_alone(memory):
    """Only what a confirm commits counts (`entries`): the confirm of a page with neither field nor
    choice (a question, a message) keeps its score, whatever the task (its own screen's entries:
    `dialogs` off)."""
    vectors, embedder = memory
    config = replace(DEFAULT, follow=False, dialogs=False)
    index = ElementIndex.load(vectors, [CALENDAR, CONTACTS], config=config)
    first = [index.payloads[r] for r in index.starts]
    committed = set(index._commit_arrays(config)[0].tolist())
    with_entries = {p["screen_id"] for p in first if p["role"] in config.entries}
    alone = [i for i, p in enumerate(first) if confirm_order.confirm(p) and p["screen_id"] not in with_entries]
    assert alone and not committed & set(alone)
    for task in {first[i]["simulated_task"] for i in alone}:
        vector = embedder.query(task)
        on, off = scores_on_off(index, "commit", vector, task)
        assert all(on[first[i]["element_id"]] == pytest.approx(off[first[i]["element_id"]]) for i in alone)


def test_a_choice_the_task_names_in_full_ranks_right_before_its_opener(memory):
    """`named`: asked for a choice by its whole label ("set the font size to Medium"), the choice scores just
    above the element that opens its list; a choice whose label the task does not say in full, and every
    element that is neither a choice nor a confirm, keep their scores."""
    vectors, embedder = memory
    index = ElementIndex.load(vectors, [CALENDAR, CONTACTS])
    first = [index.payloads[r] for r in index.starts]
    choices = index._choices
    assert choices and all(first[i]["role"] == "toggle" for i, _, _ in choices)
    raised = 0
    for i, stems, openers in choices[::max(1, len(choices) // 30)]:
        opener = first[openers[0]]
        task = f"{opener['simulated_task']}, {first[i]['label']}"  # the opener's own words, and the choice
        words = set(terms(task))
        if any(c != i and first[c]["screen_id"] == first[i]["screen_id"]
               and confirm_order.said(st, words, index.config.named_share) for c, st, _ in choices):
            continue  # the opener's words name other choices of its list too: which one is meant is not asked here
        vector = embedder.query(task)
        on, off = scores_on_off(index, "named", vector, task)
        plain = [off[first[o]["element_id"]] for o in openers.tolist() if not confirm_order.confirm(first[o])]
        best_opener = max(plain, default=float("-inf"))  # a confirm's own score moves with stages 4 and 3
        assert on[first[i]["element_id"]] >= max(off[first[i]["element_id"]], best_opener + ranking.FOLLOW_GAP) - 1e-5
        raised += on[first[i]["element_id"]] > off[first[i]["element_id"]] + 1e-6
        said = set(terms(task))
        for j, p in enumerate(first):
            if not confirm_order.confirm(p) and not (p["role"] == "toggle" and set(terms(p["label"])) <= said):
                assert on[p["element_id"]] == pytest.approx(off[p["element_id"]])
    assert raised, "some opener outranks the choice the task names"


def test_a_confirm_the_memory_does_not_show_needed_follows_the_choice_it_would_commit(memory):
    """`evidence`: on a list of choices whose memory shows no field, no choice seen staying and no dismiss (a
    single-choice dialog: the choice closes it), stage 4 leaves the confirm alone and the best choice scores
    just above it; with `evidence` off the confirm scores just above the choice, as on every form."""
    vectors, embedder = memory
    index = ElementIndex.load(vectors, [CALENDAR, CONTACTS])
    first = [index.payloads[r] for r in index.starts]
    closes = index._closes
    assert closes, "single-choice dialogs with an OK whose choices close them"
    assert any(confirm_order.needs_confirm(p) for p in first if confirm_order.confirm(p)), "forms that need theirs"
    lifted = set(index._commit_arrays(DEFAULT)[0].tolist())
    for i, choices in closes:
        assert not first[i]["needs_confirm"] and i not in lifted
        assert all(first[c]["role"] == "toggle" and first[c]["screen_id"] == first[i]["screen_id"] for c in choices)
    checked = 0
    for i, choices in closes[:8]:
        for c in choices.tolist()[:3]:
            task = first[c]["simulated_task"]
            on, off = scores_on_off(index, "evidence", embedder.query(task), task)
            best = max(choices.tolist(), key=lambda j: on[first[j]["element_id"]])
            assert on[first[best]["element_id"]] >= on[first[i]["element_id"]] + ranking.FOLLOW_GAP - 1e-5
            assert off[first[i]["element_id"]] >= off[first[c]["element_id"]] + ranking.FOLLOW_GAP - 1e-5
            checked += 1
    assert checked


def test_needs_confirm_is_the_graph_evidence_the_planner_reads(memory, shared_graph):
    """Each point's `needs_confirm` is graph/vocabulary.confirm_needed over its screen's elements and the actions
    the graph shows leaving it in place (AppGraph.stays, what agent/compose.py confirms by)."""
    from appmem.agent.appgraph import AppGraph
    from appmem.graph.vocabulary import confirm_needed

    vectors, _ = memory
    store = shared_graph.hold(DROIDTASK_EXPLORED)
    for package in (CALENDAR, CONTACTS):
        graph = AppGraph.load(store, [package])
        index = ElementIndex.load(vectors, [package])
        first = [index.payloads[r] for r in index.starts]
        stays = {e for s, e in graph.stays}
        seen = set()
        for p in first:
            if p["screen_id"] not in graph.screens:
                continue  # another module's graph of the app (with demonstrations) shares the collection
            expected = confirm_needed(graph.screen_elements(p["screen_id"]), stays)
            assert p["needs_confirm"] == expected, (package, p["label"], p["screen_id"])
            seen.add(expected)
        assert seen == {True, False}


def test_an_element_never_seen_acting_opens_what_its_twins_opened(memory):
    """`twins`: an element that was never seen to open anything opens what its twins (same label, resource id
    and role) opened, so the question its twin opens (Delete → "Are you sure?" Yes) follows it too; no
    confirm lends or borrows, and an element seen acting keeps its own effects."""
    vectors, embedder = memory
    index = ElementIndex.load(vectors, [CALENDAR, CONTACTS])  # two apps: a twin is of the element's own app
    first = [index.payloads[r] for r in index.starts]
    own, lent = index._effects(False), index._effects(True)
    borrowed = [i for i, p in enumerate(first) if not own[i] and lent[i]]
    assert borrowed, "controls on look-alike screens, one of them never tried"
    for i, p in enumerate(first):
        if own[i] or confirm_order.confirm(p):
            assert lent[i] == own[i]
    for i in borrowed:
        twins = [j for j, q in enumerate(first) if own[j] and not confirm_order.confirm(q) and (
            q["package"], q["label"], q.get("resource_id"), q["role"]) == (
            first[i]["package"], first[i]["label"], first[i].get("resource_id"), first[i]["role"])]
        assert twins and set(lent[i]) <= {s for j in twins for s in own[j]} - {first[i]["screen_id"]}
    follows = {c: set(by.tolist()) for c, by in index._follows(True)}
    gained = [(c, i) for i in borrowed for c, by in follows.items() if i in by]
    assert gained, "a confirm of a screen a twin opened"
    for c, i in gained[:6]:
        task = first[i]["simulated_task"]
        on, off = scores_on_off(index, "twins", embedder.query(task), task)
        assert on[first[c]["element_id"]] >= on[first[i]["element_id"]] + ranking.FOLLOW_GAP - 1e-5


def test_a_control_ranks_right_after_its_best_twin_on_a_look_alike_screen(memory):
    """`twin_next`: a control scores at least its best twin's score less FOLLOW_GAP (its twins: same app, label,
    resource id and role on a screen of the same title), so it ranks right after it; a confirm has no twin,
    twins the memory saw open different screens are not paired, and every other element keeps its score."""
    vectors, embedder = memory
    index = ElementIndex.load(vectors, [CALENDAR, CONTACTS])
    first = [index.payloads[r] for r in index.starts]
    pairs = {i: set(twins.tolist()) for i, twins in confirm_order.twin_pairs(first)}
    assert pairs, "controls shown on look-alike screens"
    for i, twins in pairs.items():
        assert not confirm_order.confirm(first[i])
        for j in twins:
            assert confirm_order.twin_key(first[j]) == confirm_order.twin_key(first[i])
            assert (first[j].get("screen_title") or first[j]["screen_id"]) == \
                (first[i].get("screen_title") or first[i]["screen_id"])
            mine, theirs = set(first[i].get("leads_to") or ()), set(first[j].get("leads_to") or ())
            assert not (mine and theirs) or mine & theirs
    raised = 0
    for i in list(pairs)[:8]:
        task = first[i]["simulated_task"]
        on, off = scores_on_off(index, "twin_next", embedder.query(task), task)
        for j, p in enumerate(first):
            twins = pairs.get(j, ())
            expected = max([off[p["element_id"]], *(off[first[t]["element_id"]] - ranking.FOLLOW_GAP for t in twins)])
            assert on[p["element_id"]] == pytest.approx(expected, abs=1e-5)
        raised += any(on[first[t]["element_id"]] > off[first[t]["element_id"]] + 1e-6 for t in pairs[i])
    assert raised, "a twin of the element a task describes outranked by other elements on its own texts"


def test_the_last_clause_of_a_task_is_where_it_ends():
    assert last_clause("open the dialpad and call 911") == "call 911"
    assert last_clause("create a note, type 'x', and then search for 'y'") == "search for 'y'"
    assert last_clause("rotate it, then save it") == "save it"
    assert last_clause("name it 'salt and pepper, fine'") == ""  # quotes are never split
    assert last_clause("take a selfie") == "" and last_clause("open it and ") == ""


def test_a_task_of_several_steps_weighs_its_last_clause(memory):
    """`goal_weight`: each element's score gains goal_weight times the share of the task's IDF weight that the
    words of its last clause it says carry (the lifts off here, so that nothing else moves); of two controls a task names one after the other, the
    second (where the task ends) ranks first with it, where the first did without it."""
    vectors, embedder = memory
    config = replace(DEFAULT, follow=False, commit=False, named=False, evidence=False, twin_next=False)
    index = ElementIndex.load(vectors, [CALENDAR, CONTACTS], config=config)
    first = [index.payloads[r] for r in index.starts]
    taps = [p for p in first if p["role"] == "tap" and len(terms(p["label"])) == 1
            and not confirm_order.confirm(p)][:12]
    flipped = 0
    for a in taps:
        for b in taps:
            if terms(a["label"]) == terms(b["label"]):
                continue
            task = f"{a['label']} and {b['label']}"
            vector = embedder.query(task)
            on, off = ({h.payload["element_id"]: h.score for h in index.search(vector, task, len(index), c)}
                       for c in (config, replace(config, goal_weight=0.0)))
            gain = config.goal_weight * index.overlap(task, of=last_clause(task))
            assert all(on[p["element_id"]] == pytest.approx(off[p["element_id"]] + g, abs=1e-5)
                       for p, g in zip(first, gain.tolist()))
            flipped += off[a["element_id"]] > off[b["element_id"]] and on[b["element_id"]] > on[a["element_id"]]
    assert flipped, "two controls a task names one after the other, the first ahead on the whole task's words"


def test_each_element_scores_as_its_best_task_row_the_first_of_ties():
    """An element with several task rows scores as its best one, and of rows scoring alike the first is its row
    (the payload a hit carries): one rule whatever the rows' order within an element."""
    rows = [([1.0, 0.0], {"element_id": "a", "text": "a1"}), ([0.0, 1.0], {"element_id": "a", "text": "a2"}),
            ([1.0, 0.0], {"element_id": "a", "text": "a3"}), ([0.0, 1.0], {"element_id": "b", "text": "b1"}),
            ([0.6, 0.8], {"element_id": "c", "text": "c1"}), ([1.0, 0.0], {"element_id": "c", "text": "c2"}),
            ([0.0, 1.0], {"element_id": "c", "text": "c3"})]
    index = ElementIndex.from_rows(rows, 2)
    best, chosen = index.cosines(np.asarray([1.0, 0.0], dtype=np.float32))
    assert best.tolist() == pytest.approx([1.0, 0.0, 1.0])
    assert [index.payloads[r]["text"] for r in chosen] == ["a1", "b1", "c2"]
