"""Another way on from a screen where a step of the plan failed: one of memory's hints, else BACK.

The runtime takes it when a step already failed from this screen in this run, so that two look-alike
screens cannot keep it going in circles (runtime/runtime.py).
"""
from __future__ import annotations

from appmem.contract.backend import MemoryBackend
from appmem.contract.plan import Plan
from appmem.graph.vocabulary import is_risky
from appmem.runtime.grounding import ground
from appmem.runtime.move import Move
from appmem.runtime.screen import LiveScreen
from appmem.runtime.failed_steps import StepKey, step_key

DETOUR_ACTIONS = ("tap", "long_tap")  # a detour takes an element that needs no input


def another_way(memory: MemoryBackend, task: str, package: str, here: LiveScreen, plan: Plan,
                avoid: set[StepKey]) -> Move | None:
    """Another way on from this screen than the one that failed: the best of memory's hints for it
    (towards a target, fewest steps left, best target first) that is on the screen and was not
    tried from here in this run; else BACK once; None when nothing is left."""
    start = plan.start.screen_id if plan.start else None
    hints = plan.hints if start and start == here.screen_id else None  # the plan's are for its start
    if hints is None and here.package == package and here.screen_id:
        hints = memory.hints(task, package, here.xml, None, here.activity).hints
    options = sorted((h for h in hints or () if h.action in DETOUR_ACTIONS and h.element_id
                      and (here.screen_id, h.action, h.element_id) not in avoid),
                     key=lambda h: (h.target is None, h.steps_after, -h.score))
    for hint in options:
        element = {"id": hint.element_id, "label": hint.element, "text": "", "content_desc": "",
                   "locators": hint.locators, "bounds": None}
        if ground(element, here.xml):
            return Move(hint.action, element, to_screen=hint.to_screen, risky=is_risky(hint.element))
    back = Move.back()
    return None if step_key(here, back) in avoid else back
