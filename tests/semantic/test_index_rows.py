"""An element index with other elements' points joined (semantic/ranking.py `with_rows`: a tenant's own points
over the public's index) is the index `from_rows` builds of all the points: same rows, order, parts and vectors."""
from __future__ import annotations

import numpy as np
import pytest

from appmem.semantic.ranking import ElementIndex

DIM = 8


def points(ids: list[str], seed: int) -> list[tuple[list[float], dict]]:
    """Two task rows and a label, screen and effect row per element (in a scrambled order, as a store gives them)."""
    rng = np.random.default_rng(seed)
    rows = []
    for n, element in enumerate(ids):
        for part in (None, None, "label", "screen", "effect"):
            payload = {"element_id": element, "object_id": f"{element}-{part}-{len(rows)}",
                       "text": f"tap {element} {part}", "terms": [element, str(part)]}
            if part:
                payload["part"] = part
            rows.append((list(rng.normal(size=DIM) * (n + 1)), payload))
    return [rows[i] for i in rng.permutation(len(rows))]


def same(a: ElementIndex, b: ElementIndex) -> bool:
    return (np.array_equal(a.matrix, b.matrix) and a.payloads == b.payloads and np.array_equal(a.starts, b.starts)
            and a.parts.keys() == b.parts.keys() and a.docs == b.docs
            and all(np.array_equal(a.parts[k][0], b.parts[k][0]) and np.array_equal(a.parts[k][1], b.parts[k][1])
                    and a.parts[k][2] == b.parts[k][2] for k in a.parts))


def test_an_index_with_other_elements_rows_is_the_index_of_all_the_rows():
    base, own = points(["e03", "e10", "e07", "e21"], 1), points(["e05", "e99", "e00"], 2)
    shared = ElementIndex.from_rows(base, DIM)
    joined = shared.with_rows(own, DIM)
    assert same(joined, ElementIndex.from_rows(base + own, DIM))
    assert [p["element_id"] for p in joined._first] == ["e00", "e03", "e05", "e07", "e10", "e21", "e99"]
    assert same(shared, ElementIndex.from_rows(base, DIM))  # the shared index is left as it was
    assert shared.with_rows([], DIM) is shared


def test_rows_of_an_element_the_index_holds_are_refused():
    base = points(["e03", "e10"], 1)
    with pytest.raises(ValueError):
        ElementIndex.from_rows(base, DIM).with_rows(points(["e10"], 3), DIM)
