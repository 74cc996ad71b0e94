"""Re-grounding a planned element on a dump (runtime/grounding.py), on dumps of a recorded app (a twin's
rendering of DroidBot states; no device needed)."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

from appmem.runtime.grounding import ground
from appmem.twins.app import TwinApp
from appmem.twins.render import hierarchy_xml

DROIDBOT = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "droidbot"


def test_a_locator_that_finds_several_views_gives_one_not_failed_on_first():
    app = TwinApp.from_droidbot(DROIDBOT / "com.lolo.io.onelist")
    # a state where one resource id names several views (a list's rows, its tabs)
    state, rid = next((s, rid) for s in app.states.values() for rid, n in
                      Counter(v.resource_id for v in s.views if v.visible and v.resource_id).items() if n >= 3)
    xml = hierarchy_xml(state)
    element = {"locators": [f"//*[@resource-id='{rid}']"], "bounds": None}
    first = ground(element, xml)
    assert first is not None
    second = ground(element, xml, [first[0].as_list()])
    assert second is not None and second[0] != first[0] and second[1] == first[1]
    third = ground(element, xml, [first[0].as_list(), second[0].as_list()])
    assert third is not None and third[0] not in (first[0], second[0])
    # every view failed on: the nearest again (the runtime then goes round the step)
    assert ground(element, xml, [v.bounds.as_list() for v in state.views]) == first
