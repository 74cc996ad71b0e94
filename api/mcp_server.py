"""The MCP server (official `mcp` SDK): plan, locate, hints, doc and search as tools for LLM agents.

Transport only. `build_mcp(backend)` takes a function returning what answers
the tools: the local `agent.service.Service` (stdio on the local stores, or
mounted on the API at `/mcp` over streamable HTTP behind the API keys) or a
`contract.client.ApiClient` (stdio proxying to an API server). Both have the
same methods and answer with the same `contract` models, which are the tools'
output schemas.
"""
from __future__ import annotations

import logging
from typing import Annotated, Any, Callable, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field, ValidationError

from appmem.errors import AppmemError
from appmem.contract import HintsAnswer, HintsRequest, LocateAnswer, LocateRequest, Plan, PlanRequest
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
                "to find elements, screens or tasks by meaning.")


def build_mcp(backend: Callable[[], Any]) -> MCPServer:
    mcp = MCPServer("appmem", instructions=INSTRUCTIONS)

    @mcp.tool(description="A shortcut plan for a task: steps (action, element with XPath locators, input, "
                          "risky) from the current screen or the app's entry.")
    def plan(task: Text, app: str | None = None, screen_xml: str | None = None, screen_html: str | None = None,
             screen_id: str | None = None, activity: str | None = None, screenshot: str | None = None) -> Plan:
        def call():  # the API's request model bounds each field (contract/requests.py)
            r = PlanRequest(task=task, app=app, screen_xml=screen_xml, screen_html=screen_html, screen_id=screen_id,
                            activity=activity, screenshot=screenshot)
            return backend().plan(r.task, r.app, screen_id=r.screen_id, screen_xml=r.screen_xml,
                                  screen_html=r.screen_html, activity=r.activity, screenshot=r.screenshot)
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

    return mcp
