"""The texts each state showed (graph/screens.py `shown_texts`), kept on its State node for
locating screenshots, and a graph written before states kept them: `appmem migrate` counts such states, and
ingesting their traces again adds the texts without counting anything twice."""
from __future__ import annotations

from appmem.formats.privacy import PLACEHOLDER, scrub_state
from appmem.formats.ui import Bounds
from appmem.graph.migrate import migrate
from appmem.graph.screens import SHOWN_MAX, shown_texts
from appmem.ingest.droidbot import read_json, read_recording, recording_trace, state_from_droidbot
from appmem.ingest.pipeline import ingest_trace
from tests.conftest import DROIDBOT
from tests.graph.test_identity import cypher_rows

ACHIE = "ru.ikkui.achie"


def recorded(app: str, moment: str):
    path = DROIDBOT / app / "states" / f"state_{moment}.json"
    state, _ = state_from_droidbot(read_json(path), str(path))
    return scrub_state(state)


def test_a_state_shows_its_titles_and_labels_not_its_data():
    """A popup menu's rows repeat with one shape, so the scrubber takes their texts as data: none is kept. The
    launcher's search form keeps the one row the scrubber left (a row of its own shape), each text with its own
    box, a long one's start, and not the search field's text (a field's is what was typed)."""
    assert shown_texts(recorded(ACHIE, "2023-10-19_065038")) == []
    state = recorded("de.szalkowski.activitylauncher", "2023-10-19_094534")
    shown = shown_texts(state)
    assert shown and not any(PLACEHOLDER.search(text) for text, _ in shown)
    for text, box in shown:  # a long text's start (SHOWN_MAX), where its view is
        assert any(v.bounds == box and v.text.strip().startswith(text) and len(text) <= SHOWN_MAX
                   and not v.editable for v in state.views), text
    assert ("Settings", Bounds(378, 1026, 576, 1099)) in shown
    assert ("de.szalkowski.activitylauncher.SettingsA", Bounds(306, 1099, 876, 1205)) in shown
    assert "package/action" not in {text for text, _ in shown}


def state_texts(store) -> dict[str, list[str] | None]:
    """Every state's texts (the recording's states of other apps too: a launcher, a permission page)."""
    return {r["id"]: r["texts"] for r in cypher_rows(store, "MATCH (st:State) RETURN st.id AS id, st.texts AS texts")}


def edge_counts(store) -> list[tuple]:
    return sorted((r["key"], r["n"], r["s"]) for r in cypher_rows(
        store, "MATCH (:Screen {package: $p})-[t:TRANSITION]->() RETURN t.key AS key, t.observations AS n, "
               "t.successes AS s", p=ACHIE))


def test_states_keep_their_texts_and_an_older_graph_gets_them_by_ingesting_again(empty_graph):
    trace = recording_trace(read_recording(DROIDBOT / ACHIE))
    ingest_trace(empty_graph, trace, chunk_size=20)
    kept = state_texts(empty_graph)
    assert kept and all(texts is not None for texts in kept.values())
    assert any(texts for texts in kept.values()) and not any(PLACEHOLDER.search(t) for ts in kept.values() for t in ts)
    read = empty_graph.read("pixel_shown_texts", packages=[ACHIE])
    assert {r["screen_id"] for r in read} and all(len(r["boxes"]) == 4 * len(r["texts"]) for r in read)
    counted = edge_counts(empty_graph)
    assert migrate(empty_graph)["states"] == {"without_texts": 0}

    cypher_rows(empty_graph, "MATCH (st:State) REMOVE st.texts, st.text_boxes")  # as an older appmem wrote it
    assert migrate(empty_graph)["states"] == {"without_texts": len(kept)}
    assert empty_graph.read("pixel_shown_texts", packages=[ACHIE]) == []
    ingest_trace(empty_graph, trace, chunk_size=20)
    assert state_texts(empty_graph) == kept and edge_counts(empty_graph) == counted  # nothing counted twice
    assert migrate(empty_graph)["states"] == {"without_texts": 0}


def test_texts_only_an_untrusted_contribution_showed_are_not_read(empty_graph):
    """A state only a contribution's trace saw (not yet backed by a quorum) is not read by pixel locate."""
    trace = recording_trace(read_recording(DROIDBOT / ACHIE))
    ingest_trace(empty_graph, trace, chunk_size=20)
    before = len(empty_graph.read("pixel_shown_texts", packages=[ACHIE]))
    cypher_rows(empty_graph, "MATCH (t:Trace) SET t.contributor = 'k1'")
    assert before and empty_graph.read("pixel_shown_texts", packages=[ACHIE]) == []
