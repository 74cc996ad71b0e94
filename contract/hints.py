"""Hints for a step-wise agent: which elements of its current screen lead towards the task."""
from __future__ import annotations

from pydantic import Field

from appmem.contract.base import Strict


class Hint(Strict):
    element: str = Field(description="the element's label")
    element_id: str = Field(description="its id in memory")
    locators: list[str] = Field(description="XPath queries, most precise first")
    action: str = Field(description="the action memory saw on it")
    leads_to: str = Field(description="the title of the screen it leads to")
    to_screen: str = Field(description="that screen's id")
    target: str | None = Field(description="the task's target it leads towards")
    steps_after: int = Field(description="steps left after this one")
    score: float = Field(description="how well the target fits the task")
    text: str = Field(description="the line an agent puts into its prompt")


class HintTarget(Strict):
    label: str | None = Field(description="a target element's label")
    screen_id: str | None = Field(description="its screen")
    score: float = Field(description="its retrieval score")


class HintsAnswer(Strict):
    task: str = Field(description="the task")
    package: str = Field(description="the app")
    screen_id: str | None = Field(description="the agent's screen as located (null when unknown)")
    match: str = Field(description="exact, similar or unknown")
    targets: list[HintTarget] = Field(description="the task's targets in memory")
    hints: list[Hint] = Field(description="the elements on a route to a target, best first")
