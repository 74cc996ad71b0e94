"""What agents send: a task and/or their current screen. Strict (unknown fields refused) and bounded."""
from __future__ import annotations

from pydantic import Field

from appmem.contract.base import Strict
from appmem.contract.plan import Action
from appmem.contract.run import SCREENSHOT_MAX, VERSION_PATTERN, RunAction, RunElement

SCREEN_MAX = 1_500_000
AVOID_MAX = 64  # failed steps one plan request may name
TASK_MAX = 2000  # characters of a task (and of a search text)
APP_MAX = 300  # characters of a package or short app name
DOC_BUDGET = (100, 100_000)  # the tokens an app document may be asked for (GET /v1/apps/{app}/doc, MCP doc)
SEARCH_K = (1, 100)  # the hits a search may be asked for (GET /v1/search, MCP search)


class ScreenInput(Strict):
    app: str | None = Field(None, min_length=1, max_length=APP_MAX, description="package or short app name")
    activity: str | None = Field(None, max_length=500, description="foreground activity of the dump, if known")
    screen_xml: str | None = Field(None, min_length=1, max_length=SCREEN_MAX, description="uiautomator dump")
    screen_html: str | None = Field(None, min_length=1, max_length=SCREEN_MAX, description="AutoDroid HTML")
    screenshot: str | None = Field(None, min_length=1, max_length=SCREENSHOT_MAX,
                                   description="the screen's PNG or JPEG, base64 (for agents without a view tree; "
                                               "needs `app`)")


class CameFrom(Strict):
    """The agent's previous step, as its plan gave it: the plan's first hop is weighed after it.

    Where an action lands can depend on where the app came from (BACK, "navigate up"): docs/planning.md, "Routes"."""

    screen_id: str = Field(min_length=1, max_length=200, description="the screen the step started on (its screen_id)")
    action: Action = Field(description="the step's action")
    element_id: str = Field("", max_length=200, description="the step's element id ('' when none)")
    detail: str = Field("", max_length=200, description="the action's detail: a scroll's direction ('' when none)")


class Avoid(CameFrom):
    """A step the agent took from its screen in this run and that failed there: the plan goes another way."""


class PlanRequest(ScreenInput):
    task: str = Field(min_length=1, max_length=TASK_MAX, description="what the user wants done")
    screen_id: str | None = Field(None, min_length=1, max_length=200, description="the current screen's id")
    came_from: CameFrom | None = Field(None, description="the agent's previous step, when it took one (optional)")
    avoid: list[Avoid] = Field(default_factory=list, max_length=AVOID_MAX,
                               description="steps that failed from their screens in this run: routes leave them out")


class LocateRequest(ScreenInput):
    pass


class HintsRequest(ScreenInput):
    task: str = Field(min_length=1, max_length=TASK_MAX, description="what the user wants done")


class CorrectionRequest(Strict):
    """A person fixed a step: on the screen `before_xml`, this action (not the planned one) does the task's step."""

    task: str = Field(min_length=1, max_length=TASK_MAX)
    package: str = Field(min_length=1, max_length=APP_MAX, pattern=r"^[A-Za-z0-9_.]+$")
    app_version: str = Field(min_length=1, max_length=200, pattern=VERSION_PATTERN)
    action: RunAction
    element: RunElement | None = None
    input: str = Field("", max_length=5000)
    before_xml: str = Field(min_length=1, max_length=SCREEN_MAX)
    after_xml: str = Field(min_length=1, max_length=SCREEN_MAX)
    before_activity: str = Field("", max_length=500)
    after_activity: str = Field("", max_length=500)
