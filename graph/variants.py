"""Routes conditioned on the concrete variant of the screen the agent stands in.

One screen (graph/screens.py: its structure) covers many concrete variants: its texts in
another language, a toggle's state, the rows of a list. What an action does can depend on
them, and a recorded run tried each action from some variants only. Each transition keeps
the distinct "from>to" variants (formats/uixml.variant_id) that crawls and imports saw its
action go between (graph/rows.py; contributions add none). `Variants` answers
graph/routes.py's question for a route standing in a variant the recordings acted from:
- an action recorded from this very variant lands where it was recorded to land from it;
- an action recorded only from other variants of the screen is less sure to do anything
  here (`UNSEEN`): the recordings never saw it work from what the screen shows now.
A hop whose recorded outcome from the variant is one variant tells the route where it
stands next; else the route goes on knowing only the screen (and the edge it came by).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from appmem.graph.follows import Group, pseudo_share

# P(an action does anything from a variant it was never recorded acting from | it worked from other variants
# of the screen); chosen leave-one-app-out over the shared twin apps in both replay modes (docs/planning.md, Routes: the exact
# twin ignores such an action, the similar twin does what a like state recorded: a device lies between)
UNSEEN = 0.2


@dataclass
class Variants:
    """variant → its screen's action (Group) → edge key → the variants the action landed in from it."""

    after: dict[str, dict[Group, dict[str, set[str]]]] = field(default_factory=dict)

    @classmethod
    def of(cls, rows: Iterable[Mapping[str, Any]], groups: Mapping[str, Group]) -> "Variants":
        """From planner_app_transitions rows of the usable edges (`groups`: their keys), no-ops included: an
        action that changed nothing from a variant was recorded from it too."""
        out = cls()
        for r in rows:
            group = groups.get(r["key"])
            for pair in r.get("variants") or () if group else ():
                source, _, target = pair.partition(">")
                out.after.setdefault(source, {}).setdefault(group, {}).setdefault(r["key"], set()).add(target)
        return out

    def knows(self, variant: str) -> bool:
        """Whether the recordings acted from `variant` (else a route from it knows only its screen)."""
        return variant in self.after

    def share(self, variant: str, group: Group, key: str, prior: float) -> tuple[float | None, str]:
        """(P(action `group` lands on edge `key`'s target | it is taken from `variant`), the variant it lands in,
        "" when not one): distinct recorded outcomes count as observations, with the order-1 share `prior` as
        one pseudo-observation, as in graph/follows.py. (None, "") when the action was never recorded from
        `variant` (graph/routes.py then weighs the edge by `UNSEEN`)."""
        outcomes = self.after.get(variant, {}).get(group)
        if not outcomes:
            return None, ""
        landed = outcomes.get(key, set())
        share = pseudo_share(len(landed), sum(len(v) for v in outcomes.values()), prior)
        return share, next(iter(landed)) if len(landed) == 1 else ""
