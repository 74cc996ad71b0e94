"""What a run did that its plan and its task did not need, and which of it changed the app's state: the
runtime held to the standard of exact plans (docs/planning.md).

A run's needed actions are the steps of the plan it first got (the task's target among them). Every other
action it took on the device is needless to the task: a retry of a step, a re-plan's or a detour's step, a
BACK, a relaunch. Of those, a state change is an action on a toggle or choice (the vocabulary's role of the
view acted on, as the dump before it shows it) or a risky tap (the vocabulary's risky words in what that
view shows: what the runtime asks a person to confirm). The first plan's own state changes on its way
(`why` route: a last resort the planner marks) are counted apart: the plan, not the run, made them.
A step the runtime could not ground (nothing was done on the device) is no action.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from appmem.contract.plan import Plan, PlanStep
from appmem.formats.ui import Bounds
from appmem.formats.uixml import parse_hierarchy
from appmem.graph.model import Element
from appmem.graph.vocabulary import is_risky, role_of
from appmem.runtime.grounding import shown_at
from appmem.runtime.outcome import shows


@dataclass
class Needless:
    """One run's actions beyond its first plan (`actions`, how each is shown), the state changes among them, and
    the first plan's own state changes on its way that the run took."""

    actions: list[str] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)
    route_changes: list[str] = field(default_factory=list)


def needless(plan: Plan | None, records: list[dict[str, Any]], risky_words: tuple[str, ...] = ()) -> Needless:
    """`records`: the run's steps as the runtime keeps them (Runtime.steps); `plan`: the first plan it got."""
    left = list(plan.steps) if plan is not None else []
    out = Needless()
    for record in records:
        if not record.get("acted", True):
            continue
        step = next((s for s in left if _same(s, record)), None)
        shown = _shown(record)
        if step is not None:
            left.remove(step)
            if step.why == "route" and changes_state(record, risky_words, step.risky):
                out.route_changes.append(shown)
            continue
        out.actions.append(shown)
        if changes_state(record, risky_words):
            out.changes.append(shown)
    return out


def changes_state(record: dict[str, Any], risky_words: tuple[str, ...] = (), risky: bool = False) -> bool:
    """The action acted on a toggle or choice, or on a view showing risky words (`risky`: memory says so)."""
    element = record.get("element")
    if record["action"] not in ("tap", "long_tap") or not element:
        return False
    bounds = Bounds(*element["bounds"])
    views = [v for v in parse_hierarchy(record["before_xml"], "", "").views if v.bounds == bounds]
    view = next((v for v in views if v.interactive), views[-1] if views else None)
    acted = Element("", "", class_name=view.class_name if view else element.get("class_name", ""),
                    flags=view.flags() if view else [])
    return risky or role_of(acted) == "toggle" or is_risky(shown_at(record["before_xml"], bounds), extra=risky_words)


def _same(step: PlanStep, record: dict[str, Any]) -> bool:
    """The record took this plan step: the same action, on a view of the element's class showing its text."""
    if step.action != record["action"]:
        return False
    if step.element is None:
        return record.get("element") is None
    view = record.get("element") or {}
    element = step.element.model_dump()
    return view.get("class_name", "") == element["class_name"] and shows(element, view)


def _shown(record: dict[str, Any]) -> str:
    view = record.get("element") or {}
    return f"{record['action']} {view.get('text') or view.get('content_desc') or record.get('input') or ''}".strip()
