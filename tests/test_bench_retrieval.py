"""bench/retrieval.py's leave-one-app-out choice of the ranking's options: each app gets the grid point best
on the other apps (strict R@1, then R@5; never lenient), on ties the point nearest the defaults, and the gap
is measured against the defaults' own figures."""
from __future__ import annotations

import itertools

from appmem.bench.retrieval import RANKING_GRID, held_out_choice, rates

APPS = ("one", "two", "three")


def measured(hits: dict[str, tuple[int, int, int]]) -> dict:
    """An `evaluate` result: per app (strict hits at 1, at 5, lenient hits at 5) of 10 tasks."""
    apps = {app: {"tasks": 10, "strict_1": s1, "strict_5": s5, "lenient_1": l5, "lenient_5": l5, "held": 10}
            for app, (s1, s5, l5) in hits.items()}
    return {"apps": apps, "overall": rates(apps)}


def test_each_app_is_ranked_with_the_options_best_on_the_others():
    points = list(itertools.product(*RANKING_GRID.values()))
    shipped, better, lenient = points[0], points[1], points[2]
    results = {p: measured({a: (2, 4, 4) for a in APPS}) for p in points}
    results[better] = measured({"one": (1, 4, 4), "two": (5, 6, 6), "three": (2, 4, 4)})  # better on two only
    results[lenient] = measured({a: (2, 4, 10) for a in APPS})  # better on lenient hits only: never chosen
    held = held_out_choice(results, shipped)
    by_app = {a: tuple(held["apps"][a]["options"].values()) for a in APPS}
    assert by_app == {"one": better, "two": shipped, "three": better}  # two's fold sees no gain: the defaults
    assert held["apps"]["one"]["strict_1"] == 1 and held["apps"]["one"]["gap_1"] == -10.0
    assert held["apps"]["two"]["gap_1"] == 0.0 and held["apps"]["three"]["gap_5"] == 0.0
    assert round(held["overall"]["gap_1"], 6) == round(100 * (5 - 6) / 30, 6)


def test_of_points_the_other_apps_score_alike_a_fold_takes_the_one_nearest_the_defaults():
    points = list(itertools.product(*RANKING_GRID.values()))
    shipped = points[0]
    near = next(p for p in points if sum(a != b for a, b in zip(p, shipped)) == 1)
    far = next(p for p in points if sum(a != b for a, b in zip(p, shipped)) >= 2)
    gain = measured({"one": (1, 4, 4), "two": (5, 6, 6), "three": (5, 6, 6)})
    # the farther point listed first: without the nearness rule, the first of equals would be chosen
    results = {far: gain, near: gain, **{p: measured({a: (2, 4, 4) for a in APPS}) for p in points
                                          if p not in (far, near)}}
    held = held_out_choice(results, shipped)
    assert tuple(held["apps"]["one"]["options"].values()) == near
