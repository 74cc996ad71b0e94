"""The MCP server (official `mcp` SDK): plan, locate, hints, doc and search as tools for LLM agents.

Transport only. `build_mcp(backend)` takes a function returning what answers
the tools: the local `agent.service.Service` (stdio on the local stores, or
mounted on the API at `/mcp` over streamable HTTP behind the API keys) or a
`contract.client.ApiClient` (stdio proxying to an API server). Both have the
same methods and answer with the same `contract` models, which are the tools'
output schemas.
"""
from __future__ import annotations

from typing import Any, Callable, Literal

from mcp.server.mcpserver import MCPServer

from contract import HintsAnswer, LocateAnswer, Plan

INSTRUCTIONS = ("appmem remembers mobile apps' screens and how to move between them. Call `plan` with the "
                "user's task (and your current screen's uiautomator XML if you have it) for executable steps "
                "with element locators; `locate` to learn which remembered screen you are on; `hints` for "
                "which elements of your screen lead towards the task; `doc` for an app's document; `search` "
                "to find elements, screens or tasks by meaning.")


def build_mcp(backend: Callable[[], Any]) -> MCPServer:
    mcp = MCPServer("appmem", instructions=INSTRUCTIONS)

    @mcp.tool(description="A shortcut plan for a task: steps (action, element with XPath locators, input, "
                          "risky) from the current screen or the app's entry.")
    def plan(task: str, app: str | None = None, screen_xml: str | None = None, screen_html: str | None = None,
             screen_id: str | None = None, activity: str | None = None) -> Plan:
        return backend().plan(task, app, screen_id=screen_id, screen_xml=screen_xml, screen_html=screen_html,
                              activity=activity)

    @mcp.tool(description="Which remembered screen a uiautomator dump (or AutoDroid HTML state) shows: "
                          "screen_id, match, score, candidates.")
    def locate(screen_xml: str | None = None, screen_html: str | None = None, app: str | None = None,
               activity: str | None = None) -> LocateAnswer:
        return backend().locate(app, screen_xml, screen_html, activity)

    @mcp.tool(description="Hints for a step-wise agent: elements of the current screen on a route to the task, "
                          "where they lead and how many steps remain.")
    def hints(task: str, screen_xml: str | None = None, screen_html: str | None = None, app: str | None = None,
              activity: str | None = None) -> HintsAnswer:
        return backend().hints(task, app, screen_xml, screen_html, activity)

    @mcp.tool(description="The app document: its screens, elements, what each does, locators and ways in.")
    def doc(app: str, budget: int | None = None) -> dict[str, Any]:
        return backend().doc(app, budget)

    @mcp.tool(description="Semantic search over the memory: elements, screens or tasks nearest to a text.")
    def search(text: str, kind: Literal["element", "screen", "task"] = "element", app: str | None = None,
               k: int = 5) -> dict[str, Any]:
        return {"hits": backend().search(text, kind, app, k)}

    return mcp
