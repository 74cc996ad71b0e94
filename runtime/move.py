"""A step the runtime takes on the device: one of the plan's (`contract.PlanStep`), a detour one of memory's
hints offers (runtime/detour.py), one an LLM chose (runtime/stepwise.py), or the runtime's own (BACK, launching or
stopping the app).

Its `element` is what grounding reads (runtime/grounding.py): `locators`, most precise first, and where memory
saw it, with its `id`, `label`, `text` and `content_desc` where known (a plan's `contract.PlanElement` as a dict).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from appmem.contract.plan import PlanStep


@dataclass(frozen=True)
class Move:
    action: str
    element: dict[str, Any] | None = None
    input: str = ""
    screen_id: str = ""  # the screen memory planned it on ("" when not planned)
    to_screen: str = ""  # the screen memory expects after it ("" when unknown)
    to_package: str = ""  # the app of `to_screen` when memory knows it (a step may leave the app)
    package: str = ""  # the app it acts in ("" when not planned: the run's)
    risky: bool = False  # memory (or the LLM's view) says it may destroy data
    slot: str | None = None  # "item": select the row showing `input`

    @classmethod
    def planned(cls, step: PlanStep) -> Move:
        return cls(step.action, step.element.model_dump() if step.element else None, step.input, step.screen_id,
                   step.to_screen, step.to_package, step.package, step.risky, step.slot)

    @classmethod
    def back(cls) -> Move:
        return cls("back")

    @classmethod
    def app(cls, action: str, package: str) -> Move:
        """Launch (`start_app`) or force-stop (`stop_app`) the app."""
        return cls(action, input=package)

    def as_dict(self) -> dict[str, Any]:
        """The move as a risky step's confirmation shows it (runtime/commands.py `confirmer`)."""
        return asdict(self)
