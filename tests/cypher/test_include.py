"""A statement file's `include(name)` line stands for statement `name`, so one read joins statements read alone."""
from __future__ import annotations

from appmem import cypher


def body(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//")).strip()


def test_an_include_line_is_the_named_statement_without_its_comments_expanded_as_it_runs():
    joined = cypher.load("planner_crowd_view_screens")
    assert body(joined) == "\n".join([body(cypher.load("planner_crowd_screens")), "UNION ALL",
                                      body(cypher.load("planner_crowd_layer_screens"))])
    assert "include(" not in joined and "trusted(" not in joined  # the macros of both written out
    assert cypher.expanded("include(planner_entry_screens)") == body(cypher.load("planner_entry_screens"))
