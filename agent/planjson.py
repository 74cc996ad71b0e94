"""The planner's plan as agents read it: `agent_plan` turns a `graph.model.RoutePlan` into the `contract.Plan`
that `/v1/plan`, MCP `plan` and `appmem plan --json` answer (and `../shared/eval/droidtask_score.py` scores).
The one place where a plan changes shape.

For elements of AutoDroid memories (no resource id, one of its tag classes),
`html` is the element's tag as an AutoDroid HTML state shows it (without the
per-state `id`, which changes from state to state).
"""
from __future__ import annotations

import html as htmlmod
from typing import Any

from appmem.agent.apps import ChosenApp
from appmem.contract.plan import AppChoice, Plan, PlanElement, PlanStep
from appmem.graph.model import Element, RoutePlan, RouteStep
from appmem.formats.autodroid_html import TAG_CLASSES

TAG_OF = {cls: tag for tag, cls in TAG_CLASSES.items() if tag != "p"}


def element_html(e: Element) -> str | None:
    tag = TAG_OF.get(e.class_name)
    if tag is None or e.resource_id:
        return None
    attrs = f" text='{e.content_desc}'" if e.content_desc else ""
    if tag == "checkbox":
        attrs += f" checked={'checked' in e.flags}"
    inner = htmlmod.escape(e.text, quote=False).replace("\n", "<br>")
    return f"<{tag}{attrs}>{inner}</{tag}>"


def plan_element(e: Element | None) -> PlanElement | None:
    if e is None:
        return None
    return PlanElement(id=e.id, text=e.text, content_desc=e.content_desc, label=e.label, class_name=e.class_name,
                       resource_id=e.resource_id, bounds=e.bounds.as_list(), locators=e.locators, html=element_html(e))


def plan_step(s: RouteStep, package: str) -> PlanStep:
    """`package`: the plan's, for a step that names none."""
    return PlanStep(action=s.action.value, package=s.package or package, element=plan_element(s.element),
                    input=s.input, slot=s.slot, screen_id=s.screen_id, to_screen=s.to_screen, to_package=s.to_package,
                    risky=s.risky, confidence=s.confidence, stale=s.stale, why=s.why,
                    layer=s.layer)


def app_choice(chosen: ChosenApp) -> AppChoice:
    """How the app was chosen, with the five best apps."""
    return AppChoice(package=chosen.package, score=round(chosen.score, 4), by=chosen.by,
                     ranking=[{"package": p, "score": round(s, 4)} for p, s in chosen.ranking[:5]])


def agent_plan(plan: RoutePlan, chosen: ChosenApp | None = None, hints: list[dict[str, Any]] | None = None) -> Plan:
    """The plan as agents read it; `chosen`: how the app was chosen (when none was named); `hints`: for the
    agent's current screen (when it said where it is: agent/hints.py)."""
    recall = {"recalled": plan.recalled, "replanned_from": plan.replanned_from} if plan.recalled is not None else {}
    return Plan.model_validate({
        "task": plan.task, "package": plan.package, "source": plan.source, "route": plan.route,
        "llm_calls": plan.llm_calls, "start": plan.start, "steps": [plan_step(s, plan.package) for s in plan.steps],
        "alternatives": plan.alternatives, **recall,
        **({"app_choice": app_choice(chosen)} if chosen is not None else {}),
        **({"hints": hints} if hints is not None else {})})
