"""Locating screenshots among an app's remembered screens (agent/pixels.py), on real recordings and the
device's own screenshots of them: what each remembered text is worth, the layout term, and screens that
text alone located wrongly (a clock whose digits OCR misreads, a welcome page that shows a time)."""
from __future__ import annotations

from dataclasses import replace

import pytest

from appmem.agent.appgraph import AppGraph
from appmem.agent.locate import locate
from appmem.agent.pixels import PixelMatch, app_texts, is_data, locate_pixels, shows, weight
from appmem.formats.screenshot import ReaderOptions, screen_reader, text_views
from appmem.formats.uixml import shown_views
from appmem.graph.model import Element
from appmem.ingest.droidbot import read_json, state_from_droidbot
from tests.conftest import DROIDBOT
from tests.shared_data import PIXEL_APPS, uses

CLOCK = "com.chancehorizon.just24hoursplus"


@pytest.fixture(scope="module")
@uses(PIXEL_APPS)
def memory(shared_graph):
    return shared_graph.hold(PIXEL_APPS)


def shot_and_dump(app: str, moment: str):
    """The screenshot's bytes of a recorded state, and where its view tree, read as a dump, is located."""
    shot = DROIDBOT / app / "states" / f"screen_{moment}.jpg"
    path = shot.with_name(f"state_{moment}.json")
    state, _ = state_from_droidbot(read_json(path), str(path))
    return shot.read_bytes(), replace(state, views=shown_views(state.views), activity="", state_id="")


def test_texts_mostly_of_digits_vary_and_placeholders_are_not_expected(memory):
    texts = app_texts(memory, AppGraph.load(memory, [CLOCK]), CLOCK)
    shown = {r.text: r for rows in texts.screens.values() for r in rows}
    assert shown["0000"].varies and not shown["welcometojust00hours"].varies  # the clock's title, the welcome's
    assert weight(True, PixelMatch()) == PixelMatch().data_w < weight(False, PixelMatch()) == 1.0
    assert is_data("0000") and is_data("00am") and not is_data("welcometojust00hours")


def test_what_memory_expects_to_read_leaves_out_the_scrubbers_placeholders_and_passwords():
    def element(text: str, *flags: str) -> Element:
        return Element(id="e", screen_id="s", text=text, flags=list(flags))

    assert shows(element("OK")) and shows(element("Add", "editable"))  # a field's hint is read like a label
    assert not shows(element("<ITEM>")) and not shows(element("<NUMBER>+<NUMBER>"))  # data, kept out of memory
    assert not shows(element("hunter2", "password")) and not shows(element("")) and not shows(element("x" * 41))


@pytest.mark.parametrize("moment, misread", [
    ("2023-10-19_014304", False),  # the clock read right: 01:43
    ("2023-10-19_022400", True),  # its digits misread (a display font): nothing the app shows is read
    ("2023-10-19_014131", False),  # the welcome page, which shows a time as well as its title
])
def test_screens_of_little_or_varying_text_are_located_where_their_dumps_are(memory, moment, misread):
    graph = AppGraph.load(memory, [CLOCK])
    data, dump = shot_and_dump(CLOCK, moment)
    reading = screen_reader(ReaderOptions()).read(data, CLOCK)
    expected = locate(memory, CLOCK, dump, graph)["screen_id"]
    assert expected is not None
    assert bool(app_texts(memory, graph, CLOCK).known(text_views(reading))) is not misread
    found = locate_pixels(memory, graph, CLOCK, reading)
    assert (found["match"], found["screen_id"]) == ("similar", expected), found
    # weighed as before (every text alike, a screen expecting none scoring nothing) the misread clock is unknown
    if misread:
        assert locate_pixels(memory, graph, CLOCK, reading, PixelMatch(data_w=1.0, empty=0.0))["match"] == "unknown"


def test_layout_counts_the_boxes_something_smaller_is_drawn_in():
    import numpy as np

    from appmem.agent.pixels import layout
    from appmem.formats.ui import Bounds

    row, icon = Bounds(0, 200, 1080, 344), Bounds(933, 400, 1035, 587)
    drawn = np.array([[40, 230, 600, 300], [950, 470, 1010, 520]], dtype=float)  # a row's line, an icon's glyph
    assert layout([row, icon], drawn, 1.0) == 1.0
    assert layout([row, icon], drawn[:1], 1.0) == 0.5
    assert layout([row], np.array([[0, 190, 1080, 360]], dtype=float), 1.0) == 0.0  # larger: not inside it
    assert layout([row, icon], drawn * 720 / 1080, 720 / 1080) == 1.0  # a 720-wide screenshot's pixels
    assert layout([], drawn, 1.0) == layout([row], np.zeros((0, 4)), 1.0) == 0.0


LAUNCHER = "de.szalkowski.activitylauncher"


@pytest.mark.parametrize("moment", [
    "2023-10-19_100727",  # the launcher's list in Arabic: only its rows' headers and class names tell it
    "2023-10-19_103755",  # the search form over the list: look-alike forms differ in the rows they show
])
def test_a_screen_is_located_on_what_its_states_showed_beside_their_elements(memory, moment):
    from appmem.agent.pixels import AppTexts

    graph = AppGraph.load(memory, [LAUNCHER])
    data, dump = shot_and_dump(LAUNCHER, moment)
    reading = screen_reader(ReaderOptions()).read(data, LAUNCHER)
    expected = locate(memory, LAUNCHER, dump, graph)["screen_id"]
    found = locate_pixels(memory, graph, LAUNCHER, reading)
    assert expected is not None and (found["match"], found["screen_id"]) == ("similar", expected), found
    assert any(r.box is not None and r.often < 1.0 for rows in app_texts(memory, graph, LAUNCHER).screens.values()
               for r in rows)  # a text only some of a screen's states showed weighs less
    # on its elements' texts and titles alone (a memory whose states kept no texts) it is another screen
    older = AppGraph.load(memory, [LAUNCHER])
    older.__dict__["_pixel_texts"] = {LAUNCHER: AppTexts(older, LAUNCHER, {})}
    assert locate_pixels(memory, older, LAUNCHER, reading)["screen_id"] != expected
