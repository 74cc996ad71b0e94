"""The order conftest gives the modules that hold shared data sets (tests/shared_data.py): one family runs
together, bases first, where its first module was; other modules keep their places and modules stay whole."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from tests.conftest import families_together
from tests.shared_data import ANALYST, CALENDAR_EXPLORED, DROIDTASK_EXPLORED, LAUNCHER_RECORDING, uses


def item(module: str, name: str, data=None) -> SimpleNamespace:
    fixtures = {}
    if data is not None:
        fixtures["memory"] = [SimpleNamespace(func=uses(data)(lambda: None))]
    fixtures["plain"] = [SimpleNamespace(func=lambda: None)]
    return SimpleNamespace(path=Path(module), name=name, _fixtureinfo=SimpleNamespace(name2fixturedefs=fixtures))


def test_a_family_runs_together_bases_first_and_the_rest_keeps_its_place():
    items = [item("a/test_planner.py", "p1", DROIDTASK_EXPLORED), item("a/test_planner.py", "p2"),
             item("a/test_plain.py", "x"),
             item("b/test_map.py", "m", LAUNCHER_RECORDING),
             item("c/test_app.py", "c1", CALENDAR_EXPLORED), item("c/test_app.py", "c2", CALENDAR_EXPLORED),
             item("d/test_queries.py", "q", ANALYST), item("d/test_plain.py", "y")]
    ordered = [(i.path.name, i.name) for i in families_together(items)]
    assert ordered == [("test_app.py", "c1"), ("test_app.py", "c2"), ("test_planner.py", "p1"),
                       ("test_planner.py", "p2"), ("test_plain.py", "x"), ("test_map.py", "m"),
                       ("test_queries.py", "q"), ("test_plain.py", "y")]


def test_without_shared_data_nothing_moves():
    items = [item(f"t/test_{n}.py", n) for n in "cab"]
    assert families_together(items) == items


def test_a_set_knows_the_sets_it_builds_on():
    assert DROIDTASK_EXPLORED.lineage == [CALENDAR_EXPLORED, DROIDTASK_EXPLORED]
    assert ANALYST.lineage[0] is LAUNCHER_RECORDING and CALENDAR_EXPLORED.lineage == [CALENDAR_EXPLORED]
