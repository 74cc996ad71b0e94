"""The MCP server (official `mcp` SDK): what memory offers LLM agents.

- tools: plan, locate, hints, doc, search, and apps (the app graphs memory holds; no device needed);
- resources: each app's document and map, `appmem://apps/{package}/doc` and `appmem://apps/{package}/map`
  (listed per stored app, and readable for any app name as templates);
- prompt `use_a_plan`: how an agent follows a plan, and asks again with `came_from` on a surprise.

Transport only. `build_mcp(backend)` takes a function returning what answers
them: the local `agent.service.Service` (stdio on the local stores, or
mounted on the API at `/mcp` over streamable HTTP behind the API keys: every request,
tools, resources and prompts alike, needs a live key with the `plan` scope) or a
`contract.client.ApiClient` (stdio proxying to an API server, with its key). Both have the
same methods and answer with the same data, the `contract` models being the tools'
output schemas.
"""
from __future__ import annotations

import json
import logging
from typing import Annotated, Any, Callable, Literal

import anyio
import mcp.types
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from pydantic import Field, ValidationError

from appmem.errors import AppmemError
from appmem.contract import Avoid, CameFrom, HintsAnswer, HintsRequest, LocateAnswer, LocateRequest, Plan, PlanRequest
from appmem.contract.requests import APP_MAX, DOC_BUDGET, SEARCH_K, TASK_MAX

# The SDK logs a refused call with its message, which names the caller's input (an app, a screen id):
# refusals are the caller's business, and the API's logs carry no client text either.
logging.getLogger("mcp.server.mcpserver.server").setLevel(logging.WARNING)

# the API's bounds (contract/requests.py) on the arguments that have no request model
Text = Annotated[str, Field(min_length=1, max_length=TASK_MAX)]
App = Annotated[str, Field(min_length=1, max_length=APP_MAX)]
Budget = Annotated[int | None, Field(ge=DOC_BUDGET[0], le=DOC_BUDGET[1])]
K = Annotated[int, Field(ge=SEARCH_K[0], le=SEARCH_K[1])]


def answered(call: Callable[[], Any]) -> Any:
    """The backend's answer; a request the contract refuses or the memory cannot answer is a ToolError
    naming what is wrong (anything else the SDK reports as a crash, with no reason for the agent)."""
    try:
        return call()
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ToolError(f"{'.'.join(str(p) for p in first['loc']) or 'arguments'}: {first['msg']}") from None
    except AppmemError as exc:
        raise ToolError(f"{type(exc).__name__}: {exc}") from None

INSTRUCTIONS = ("appmem remembers mobile apps' screens and how to move between them. Call `plan` with the "
                "user's task (and your current screen's uiautomator XML, or its screenshot as base64 PNG or JPEG with "
                "the app, if you have one) for executable steps "
                "with element locators; `locate` to learn which remembered screen you are on; `hints` for "
                "which elements of your screen lead towards the task; `doc` for an app's document; `search` "
                "to find elements, screens or tasks by meaning; `apps` for the apps memory holds. Each app's "
                "document and map are also resources; the prompt `use_a_plan` says how to follow a plan.")

DOC_URI = "appmem://apps/{package}/doc"
MAP_URI = "appmem://apps/{package}/map"

USE_A_PLAN = """You are operating the Android app {app} for this task: {task}

1. Call the `plan` tool with the task, the app and your current screen (its uiautomator XML as `screen_xml`).
2. Take the plan's `steps` in order. For each step, find its `element` on your screen through its `locators`
   (XPath queries, most precise first), then do its `action` (with `input` when there is one). A step marked
   `risky` may destroy data: ask the user before you take it.
3. After each step, check that you reached the step's `to_screen` (call `locate` with the new screen when unsure).
4. On a surprise (the element is not on your screen, or the step led elsewhere), do not guess: call `plan` again
   with your new screen and `came_from` set to the step you just took ({{"screen_id", "action", "element_id"}} of
   that step), and go on with the new plan from its first step.
5. A plan whose `route` is "none" means memory knows no way from here: call `hints` with your screen for the
   elements that lead towards the task, or go back to the app's first screen and plan again.
6. The task is done when the plan's last step was taken and the app reacted to it."""


class AppmemMCP(MCPServer):
    """The SDK's server, whose resource list names each stored app's document and map (the SDK lists only
    fixed resources; the templates read any app)."""

    def __init__(self, backend: Callable[[], Any], **kw: Any):
        super().__init__("appmem", **kw)
        self.backend = backend

    async def list_resources(self) -> list[mcp.types.Resource]:
        apps = await anyio.to_thread.run_sync(lambda: self.backend().apps())
        packages = sorted({row["package"] for row in apps})
        return await super().list_resources() + [
            mcp.types.Resource(uri=uri.format(package=package), name=f"{package} {kind}", mime_type="application/json",
                               description=f"the {kind} of {package}")
            for package in packages for kind, uri in (("document", DOC_URI), ("map", MAP_URI))]


def resource_text(call: Callable[[], Any]) -> str:
    """The backend's answer as JSON text; what memory cannot answer is a ResourceError naming why."""
    try:
        return json.dumps(call())
    except AppmemError as exc:
        raise ResourceError(f"{type(exc).__name__}: {exc}") from None


def build_mcp(backend: Callable[[], Any]) -> MCPServer:
    mcp = AppmemMCP(backend, instructions=INSTRUCTIONS)

    @mcp.tool(description="A shortcut plan for a task: steps (action, element with XPath locators, input, "
                          "risky) from the current screen or the app's entry. Asking again after a surprise, "
                          "`came_from` names the step just taken; `avoid`, steps that failed in this run.")
    def plan(task: Text, app: str | None = None, screen_xml: str | None = None, screen_html: str | None = None,
             screen_id: str | None = None, activity: str | None = None, came_from: CameFrom | None = None,
             avoid: list[Avoid] | None = None, screenshot: str | None = None) -> Plan:
        def call():  # the API's request model bounds each field (contract/requests.py)
            r = PlanRequest(task=task, app=app, screen_xml=screen_xml, screen_html=screen_html, screen_id=screen_id,
                            activity=activity, came_from=came_from, avoid=avoid or [], screenshot=screenshot)
            return backend().plan(r.task, r.app, screen_id=r.screen_id, screen_xml=r.screen_xml,
                                  screen_html=r.screen_html, activity=r.activity,
                                  came_from=r.came_from.model_dump() if r.came_from else None,
                                  avoid=[a.model_dump() for a in r.avoid], screenshot=r.screenshot)
        return answered(call)

    @mcp.tool(description="Which remembered screen a uiautomator dump (or AutoDroid HTML state, or a base64 PNG "
                          "or JPEG screenshot with the app) shows: screen_id, match, score, candidates.")
    def locate(screen_xml: str | None = None, screen_html: str | None = None, app: str | None = None,
               activity: str | None = None, screenshot: str | None = None) -> LocateAnswer:
        def call():
            r = LocateRequest(app=app, screen_xml=screen_xml, screen_html=screen_html, activity=activity,
                              screenshot=screenshot)
            return backend().locate(r.app, r.screen_xml, r.screen_html, r.activity, r.screenshot)
        return answered(call)

    @mcp.tool(description="Hints for a step-wise agent: elements of the current screen on a route to the task, "
                          "where they lead and how many steps remain.")
    def hints(task: Text, screen_xml: str | None = None, screen_html: str | None = None, app: str | None = None,
              activity: str | None = None, screenshot: str | None = None) -> HintsAnswer:
        def call():
            r = HintsRequest(task=task, app=app, screen_xml=screen_xml, screen_html=screen_html, activity=activity,
                             screenshot=screenshot)
            return backend().hints(r.task, r.app, r.screen_xml, r.screen_html, r.activity, r.screenshot)
        return answered(call)

    @mcp.tool(description="The app document: its screens, elements, what each does, locators and ways in.")
    def doc(app: App, budget: Budget = None) -> dict[str, Any]:
        return answered(lambda: backend().doc(app, budget))

    @mcp.tool(description="Semantic search over the memory: elements, screens or tasks nearest to a text.")
    def search(text: Text, kind: Literal["element", "screen", "task"] = "element", app: App | None = None,
               k: K = 5) -> dict[str, Any]:
        return {"hits": answered(lambda: backend().search(text, kind, app, k))}

    @mcp.tool(description="The app graphs memory holds, with no device needed: per app and version, its traces, "
                          "screens, elements, transitions, stale edges and tasks (the API's GET /v1/apps).")
    def apps() -> dict[str, Any]:
        return {"apps": answered(lambda: backend().apps())}

    @mcp.resource(DOC_URI, name="app document", mime_type="application/json",
                  description="The app document: its screens, elements, what each does, locators and ways in.")
    def doc_resource(package: str) -> str:
        return resource_text(lambda: backend().doc(package))

    @mcp.resource(MAP_URI, name="app map", mime_type="application/json",
                  description="The app map: its screens (with thumbnails) and the transitions between them.")
    def map_resource(package: str) -> str:
        return resource_text(lambda: backend().app_map(package))

    @mcp.prompt(name="use_a_plan", description="How to follow a plan of appmem's, and re-plan with came_from "
                                               "on a surprise.")
    def use_a_plan(task: Text, app: App = "the app the plan names") -> str:
        return USE_A_PLAN.format(task=task, app=app)

    return mcp
