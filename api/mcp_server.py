"""The MCP server (official `mcp` SDK): `plan`, `locate` and `hints` as tools for LLM agents.

`build_mcp(backend)` takes a function returning what answers the tools: the
local `Memory` (stdio on the local stores, or mounted on the API at `/mcp` over
streamable HTTP behind the API keys) or an `ApiClient` (stdio proxying to an
API server). Both have the same `plan` / `locate` / `hints` methods.
"""
from __future__ import annotations

from typing import Any, Callable

from mcp.server.mcpserver import MCPServer

INSTRUCTIONS = ("appmem remembers mobile apps' screens and how to move between them. Call `plan` with the "
                "user's task (and your current screen's uiautomator XML if you have it) for executable steps "
                "with element locators; `locate` to learn which remembered screen you are on; `hints` for "
                "which elements of your screen lead towards the task.")


def build_mcp(backend: Callable[[], Any]) -> MCPServer:
    mcp = MCPServer("appmem", instructions=INSTRUCTIONS)

    @mcp.tool(description="A shortcut plan for a task: steps (action, element with XPath locators, input, "
                          "risky) from the current screen or the app's entry.")
    def plan(task: str, app: str | None = None, screen_xml: str | None = None, screen_id: str | None = None,
             activity: str | None = None) -> dict[str, Any]:
        return backend().plan(task, app, screen_id=screen_id, screen_xml=screen_xml, activity=activity)

    @mcp.tool(description="Which remembered screen a uiautomator dump shows: screen_id, match, score, candidates.")
    def locate(screen_xml: str, app: str | None = None, activity: str | None = None) -> dict[str, Any]:
        return backend().locate(app, screen_xml, None, activity)

    @mcp.tool(description="Hints for a step-wise agent: elements of the current screen on a route to the task, "
                          "where they lead and how many steps remain.")
    def hints(task: str, screen_xml: str, app: str | None = None, activity: str | None = None) -> dict[str, Any]:
        return {"hints": backend().hints(task, app, screen_xml, None, activity)}

    return mcp
