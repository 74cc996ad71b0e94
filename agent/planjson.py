"""A Plan as the JSON agents read (`contract.Plan` validates it), which `../shared/eval/droidtask_score.py` scores.

For elements of AutoDroid memories (no resource id, one of its tag classes),
`html` is the element's tag as an AutoDroid HTML state shows it (without the
per-state `id`, which changes from state to state).
"""
from __future__ import annotations

import html as htmlmod
from typing import Any

from appmem.graph.model import Element, Plan
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


def element_dict(e: Element | None) -> dict[str, Any] | None:
    if e is None:
        return None
    return {"id": e.id, "text": e.text, "content_desc": e.content_desc, "label": e.label, "class_name": e.class_name,
            "resource_id": e.resource_id, "bounds": e.bounds.as_list(), "locators": e.locators,
            "html": element_html(e)}


def plan_to_dict(plan: Plan) -> dict[str, Any]:
    out = {
        "task": plan.task, "package": plan.package, "source": plan.source, "route": plan.route,
        "llm_calls": plan.llm_calls, "start": plan.start,
        "steps": [{"action": s.action.value, "package": s.package or plan.package, "element": element_dict(s.element),
                   "input": s.input, "slot": s.slot, "screen_id": s.screen_id, "to_screen": s.to_screen,
                   "to_package": s.to_package,
                   "risky": s.risky, "confidence": s.confidence, "stale": s.stale, "why": s.why, "layer": s.layer}
                  for s in plan.steps],
        "alternatives": plan.alternatives,
    }
    if plan.recalled is not None:  # recall (agent/recall.py): which stored task, and from where it was re-planned
        out.update(recalled=plan.recalled, replanned_from=plan.replanned_from)
    return out
