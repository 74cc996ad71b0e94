"""Tenants' kept points (semantic/layercache.py) on a real SQLite file, and the digest of what a layer's points are
computed from (semantic/layers.py `layer_digest`)."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from appmem.formats.ui import Bounds
from appmem.graph.model import Element
from appmem.semantic import layercache
from appmem.semantic.contexts import ScreenRow, TransitionRow
from appmem.semantic.layercache import LayerCache
from appmem.semantic.layers import Layer, layer_digest

APP, OTHER = "org.example.app", "org.example.other"


def points(package: str, n: int, seed: int) -> Layer:
    """A layer of `n` element rows and one screen row, as layer_rows makes them (vector, JSON payload)."""
    rng = np.random.default_rng(seed)
    elements = [(rng.standard_normal(8).astype(np.float32).tolist(),
                 {"package": package, "element_id": f"e{i}", "object_id": f"e{i}#label" if i % 2 else f"e{i}",
                  "risky": i == 1, "part": "label" if i % 2 else None, "terms": ["open", f"t{i}"], "depth": i,
                  "leads_to": []}) for i in range(n)]
    screens = [(rng.standard_normal(8).astype(np.float32).tolist(),
                {"package": package, "object_id": "s1", "screen_id": "s1", "extra": {"screen_title": "Home"}})]
    return Layer(elements, screens)


def same(a: Layer, b: Layer) -> bool:
    rows = lambda layer: layer.elements + layer.screens  # noqa: E731
    return len(a.elements) == len(b.elements) and [p for _, p in rows(a)] == [p for _, p in rows(b)] and all(
        np.array_equal(np.asarray(x, dtype=np.float32), np.asarray(y, dtype=np.float32))
        for (x, _), (y, _) in zip(rows(a), rows(b)))


def test_kept_points_are_read_back_exactly_for_their_tenant_scope_and_digest_alone(tmp_path):
    cache = LayerCache.at(tmp_path)
    layer = points(APP, 5, 1)
    cache.put("acme", f"elements:{APP}", b"d1", layer, [APP])
    assert cache.stored == 1
    kept = cache.get("acme", f"elements:{APP}", b"d1")
    assert kept is not None and same(kept, layer) and cache.found == 1
    # another digest (the graph changed), another tenant, another scope: nothing
    assert cache.get("acme", f"elements:{APP}", b"d2") is None
    assert cache.get("wayne", f"elements:{APP}", b"d1") is None
    assert cache.get("acme", f"screens:{APP}", b"d1") is None
    # the newest computation of a scope replaces the older
    newer = points(APP, 3, 2)
    cache.put("acme", f"elements:{APP}", b"d2", newer, [APP])
    assert cache.get("acme", f"elements:{APP}", b"d1") is None and same(cache.get("acme", f"elements:{APP}", b"d2"), newer)
    # an empty layer is kept too (a view with nothing of its own computes nothing either)
    cache.put("acme", f"elements:{OTHER}", b"d3", Layer(), [OTHER])
    assert same(cache.get("acme", f"elements:{OTHER}", b"d3"), Layer())
    cache.close()


def test_a_tenants_purge_forgets_its_points_and_a_keys_purge_those_of_its_apps(tmp_path):
    cache = LayerCache.at(tmp_path)
    for tenant in ("acme", "wayne"):
        cache.put(tenant, f"elements:{APP}", b"d", points(APP, 2, 1), [APP])
        cache.put(tenant, f"elements:{OTHER}", b"d", points(OTHER, 2, 1), [OTHER])
    cache.put("acme", f"elements:{APP},{OTHER}", b"d", points(APP, 2, 1), [APP, OTHER])
    assert layercache.forget_namespace(tmp_path, "acme") == 3
    assert cache.get("acme", f"elements:{APP}", b"d") is None and cache.get("wayne", f"elements:{APP}", b"d")
    assert layercache.forget_apps(tmp_path, [OTHER]) == 1  # wayne's; "org.example.app" is no app of it
    assert cache.get("wayne", f"elements:{OTHER}", b"d") is None and cache.get("wayne", f"elements:{APP}", b"d")
    assert layercache.forget_apps(tmp_path, []) == 0
    assert layercache.forget_namespace(tmp_path / "none", "acme") == 0 and layercache.forget_apps(tmp_path / "none", [APP]) == 0
    cache.close()


def test_the_digest_changes_with_anything_a_layers_points_are_computed_from():
    screens = [ScreenRow("s1", APP, "1", "Main", "Home"), ScreenRow("s2", APP, "1", "Main", "Settings")]
    elements = [Element("e1", "s1", "/a#0", "Button", "", "Settings", "", Bounds(0, 0, 10, 10), ["enabled"], ["//x"]),
                Element("e2", "s2", "/b#0", "Switch", "", "Dark mode", "", Bounds(0, 20, 10, 30), [], [])]
    edges = [TransitionRow("s1", "s2", "e1")]
    digest = layer_digest(screens, elements, edges, {"e2"}, set(), "model")
    assert digest == layer_digest(list(screens), list(elements), list(edges), ["e2"], [], "model")
    changed = [layer_digest(screens, elements, edges, {"e1", "e2"}, set(), "model"),
               layer_digest(screens, elements, edges, {"e2"}, {"s2"}, "model"),
               layer_digest(screens, elements, edges, {"e2"}, set(), "another model"),
               layer_digest([replace(screens[0], title="Start"), screens[1]], elements, edges, {"e2"}, set(), "model"),
               layer_digest(screens, [elements[0], replace(elements[1], text="Night mode")], edges, {"e2"}, set(), "model"),
               layer_digest(screens, [elements[0], replace(elements[1], flags=["checked"])], edges, {"e2"}, set(), "model"),
               layer_digest(screens, [elements[0], replace(elements[1], bounds=Bounds(0, 21, 10, 30))], edges, {"e2"},
                            set(), "model"),
               layer_digest(screens, elements, edges + [TransitionRow("s2", "s1", "", "back")], {"e2"}, set(), "model")]
    assert digest not in changed and len(set(changed)) == len(changed)
