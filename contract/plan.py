"""A plan: executable steps with robust element locators (what `/v1/plan`, MCP `plan` and `appmem plan --json` return).

`../shared/eval/droidtask_score.py` reads `steps[].action`, `steps[].element`
(`text`, `content_desc`, `label`, `html`), `steps[].input` and `llm_calls`.
"""
from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from appmem.contract.base import Strict
from appmem.contract.hints import Hint

Action = Literal["tap", "long_tap", "input", "scroll", "back", "home", "enter", "start_app", "stop_app"]


class PlanElement(Strict):
    id: str = Field(description="the element's id in memory")
    text: str = Field(description="its text")
    content_desc: str = Field(description="its content description")
    label: str = Field(description="what it shows a person: text, else description, else resource name")
    class_name: str = Field(description="its Android widget class")
    resource_id: str = Field(description="its resource id ('' when none)")
    bounds: list[int] = Field(description="[left, top, right, bottom] where memory saw it")
    locators: list[str] = Field(description="XPath queries, most precise first")
    html: str | None = Field(None, description="its tag as an AutoDroid HTML state shows it (AutoDroid memories)")


class PlanStep(Strict):
    action: Action = Field(description="what to do")
    package: str = Field(description="the app the step acts in (plans may switch apps)")
    element: PlanElement | None = Field(description="the element acted on (null for back, home, start_app ...)")
    input: str = Field(description="text to type ('' when none)")
    slot: str | None = Field(description="'item': select the row showing `input`; 'value': a field filled from the task")
    screen_id: str = Field(description="the screen the step starts on")
    to_screen: str = Field(description="the screen expected after the step ('' when unknown)")
    to_package: str = Field("", description="the app of to_screen when memory knows it (a step may leave the app)")
    risky: bool = Field(description="the step may destroy data: confirm with the user first")
    confidence: float = Field(description="how likely the step works (the edge's reliability)")
    stale: bool = Field(description="the edge was not re-observed in the app's newest explored version")
    why: str = Field("", description="route (a move toward the target), target, value (a value or choice the task names) "
                                     "or confirm (a confirm the memory shows is needed)")


class PlanStart(Strict):
    screen_id: str | None = Field(description="where the plan starts (null when the agent's screen is unknown)")
    match: str = Field(description="how the start was found: exact, similar, unknown, entry")
    score: float = Field(description="the match's score")


class Alternative(Strict):
    screen_id: str = Field(description="a target's screen")
    screen: str = Field(description="that screen's title")
    label: str = Field(description="the target element's label")
    score: float = Field(description="its retrieval score")


class AppChoice(Strict):
    package: str = Field(description="the app chosen for the task when none was named")
    score: float = Field(description="its score")
    by: str = Field(description="recall (a stored task) or elements (retrieval)")
    ranking: list[dict[str, Any]] = Field(description="the best apps: {package, score}")


class Plan(Strict):
    task: str = Field(description="the task planned")
    package: str = Field(description="the app (comma-separated when several)")
    source: str = Field(description="memory (planned), recall (a stored task) or none")
    route: str = Field(description="found, or none: no route from the start screen to any target")
    llm_calls: int = Field(description="LLM calls spent on this plan")
    start: PlanStart | None = Field(description="where the plan starts")
    steps: list[PlanStep] = Field(description="the steps, in order")
    alternatives: list[Alternative] = Field(description="other targets memory found for the task")
    recalled: dict[str, Any] | None = Field(None, description="recall: the stored task answered with (`task_id`: "
                                                               "a run of the plan names it in its trace), its provenance")
    replanned_from: int | None = Field(None, description="recall: the step from which the planner took over")
    app_choice: AppChoice | None = Field(None, description="how the app was chosen (only when none was named)")
    hints: list[Hint] | None = Field(None, description="hints for the agent's current screen (when it sent one)")
