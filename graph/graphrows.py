"""An app's graph as the rows it is built from: the public's, read once, and a tenant's layer read over them.

A tenant's view of an app is the public graph plus what the tenant's own keys reported (the one trust
predicate, cypher/__init__.py, admits both for its keys). The public's rows of an app are read once per
process and shared by every view; a tenant's view reads only its layer (cypher/planner_layer_*.cypher:
its own screens and those it titles otherwise, with the other apps' screens the public's edges enter that it
titles otherwise, the elements it reads otherwise than the public, the edges its keys reported or counted) and
lays it over them: the rows are those its reader's own full read returns, the base is never read again per
tenant, and the layer's read is proportional to what the tenant contributed.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable

from appmem.graph.store import GraphStore
from appmem.graph.votes import usable

Row = dict[str, Any]


@dataclass(frozen=True)
class GraphRows:
    """What AppGraph (agent/appgraph.py) builds an app's graph from, as one reader reads it: the screens of
    `packages` (ordered by id), their elements (by screen, key, id), the edges leaving them (by source,
    element, target, key), the taps and backs into them from other apps' screens those edges enter (`side`), with
    those taps' controls (`side_elements`), where recorded runs entered and the order-2 outcomes."""

    packages: tuple[str, ...]
    screens: list[Row]
    elements: list[Row]
    transitions: list[Row]
    side: list[Row]
    side_elements: list[Row]
    entries: list[str]
    follows: list[Row]

    @classmethod
    def read(cls, store: GraphStore, packages: list[str]) -> "GraphRows":
        """The rows of `packages` as `store`'s reader reads them."""
        screens = store.read("planner_app_screens", packages=packages)
        elements = store.elements(screen_ids=[r["id"] for r in screens])
        transitions = store.read("planner_app_transitions", packages=packages)
        side = _side(store, packages, _outside(packages, transitions))
        side_elements = _controls(store, side)
        entries = [r["screen_id"] for r in store.read("planner_entry_screens", packages=packages)]
        follows = store.read("planner_app_follows", packages=packages)
        return cls(tuple(packages), screens, elements, transitions, side, side_elements, entries, follows)

    def with_layer(self, store: GraphStore) -> "GraphRows":
        """These rows (the public's) with the layer of `store`'s reader (a tenant) over them: the rows its own
        `read` returns. Three reads of the layer (planner_layer_*), a fourth where the public's edges back into
        the app take controls; one more of the edges back into the app from other apps' screens that only the
        layer's edges enter, and of controls only the layer's such edges take."""
        if not store.viewer.tenant:
            return self
        packages = list(self.packages)
        controls = sorted({r["id"] for r in self.side_elements})
        targets = sorted({r["target"] for r in self.transitions if r["target_package"] not in packages})
        own_screens = store.read("planner_layer_screens", packages=packages, targets=targets)
        own_elements, own_edges = (store.read(f"planner_layer_{kind}", packages=packages)
                                   for kind in ("elements", "transitions"))
        own_controls = store.read("planner_layer_controls", ids=controls) if controls else []
        if not (own_screens or own_elements or own_edges or own_controls):
            return self
        screens = _over(self.screens, sorted((r for r in own_screens if r["package"] in packages), key=_id), _id)
        elements = _over(self.elements, own_elements, _element_order)
        titled = {r["id"]: r["title"] for r in own_screens}  # the app's screens and those its edges enter
        transitions = _over(_titled(self.transitions, titled),
                            [_edge(r) for r in own_edges if r["source_package"] in packages], _edge_order, _edge_id)
        entered = set(_outside(packages, self.transitions))
        outside = _outside(packages, transitions)
        side = sorted(_titled(self.side, titled) + _side(store, packages, [s for s in outside if s not in entered]),
                      key=_edge_order)
        back = [_edge(r) for r in own_edges if r["source_package"] not in packages and r["source"] in outside]
        side = _over(side, back, _edge_order, _edge_id)
        known = set(controls)
        taken = own_controls + _controls(store, [r for r in side if r["element_id"] and r["element_id"] not in known])
        return replace(self, screens=screens, elements=elements, transitions=transitions, side=side,
                       side_elements=_over(self.side_elements, taken, _element_order))


def _titled(edges: list[Row], titles: dict[str, str]) -> list[Row]:
    """The public's `edges` with the target titles of the screens the layer titles (its own screens' rows)."""
    return [{**r, "target_title": titles[r["target"]]} if r["target"] in titles else r for r in edges]


def _outside(packages: list[str], transitions: list[Row]) -> list[str]:
    """The other apps' screens that the usable ones of `transitions` enter."""
    return sorted({r["target"] for r in transitions if r["target_package"] not in packages and usable(r)})


def _side(store: GraphStore, packages: list[str], screen_ids: list[str]) -> list[Row]:
    return store.read("planner_side_transitions", packages=packages, screen_ids=screen_ids) if screen_ids else []


def _controls(store: GraphStore, side: list[Row]) -> list[Row]:
    ids = sorted({r["element_id"] for r in side if r["element_id"]})
    return store.elements(ids=ids) if ids else []


def _edge(row: Row) -> Row:
    """A planner_layer edge as planner_app_transitions returns it."""
    return {k: v for k, v in row.items() if k != "source_package"}


def _edge_id(row: Row) -> tuple[str, str, str]:
    return row["source"], row["key"], row["target"]


def _edge_order(row: Row) -> tuple[str, str, str, str]:
    return row["source"], row["element_id"], row["target"], row["key"]


def _id(row: Row) -> str:
    return row["id"]


def _element_order(row: Row) -> tuple[str, str, str]:
    return row["screen_id"], row["key"], row["id"]


def _over(base: list[Row], layer: Iterable[Row], order: Callable[[Row], tuple[str, ...] | str],
          identity: Callable[[Row], Any] = _id) -> list[Row]:
    """`base` (ordered by `order`) with the rows of `layer` over it: one that `identity` says is a base row takes
    its place, the others join in `order` (after the base rows that order alike)."""
    layer = list(layer)
    if not layer:
        return base
    over = {identity(r): r for r in layer}
    rows = [over.pop(identity(r), r) for r in base]
    return sorted(rows + list(over.values()), key=order)
