"""The security page names every route of the API and every MCP tool, resource and prompt, each with who
may call it and what it filters: a route added without its line there fails here."""
from __future__ import annotations

import asyncio
from pathlib import Path

from appmem.analyst.map import map_router
from appmem.api import contrib, routes, tenants
from appmem.api.mcp_server import build_mcp

PAGE = Path(__file__).resolve().parents[2] / "docs" / "security.md"
APP_ROUTES = ("GET /healthz", "GET /metrics")  # written in api/app.py create_app itself


def routes_served() -> list[str]:
    routers = (routes.router, contrib.router, tenants.router, map_router(lambda key: None, lambda: None))
    return [f"{method} {route.path}" for router in routers for route in router.routes for method in route.methods]


async def mcp_names() -> list[str]:
    mcp = build_mcp(lambda: None)
    return ([f"MCP `{t.name}`" for t in await mcp.list_tools()]
            + [f"`{r.uri_template}`" for r in await mcp.list_resource_templates()]
            + [f"MCP prompt `{p.name}`" for p in await mcp.list_prompts()])


def test_every_route_and_mcp_tool_resource_and_prompt_is_on_the_security_page():
    page = PAGE.read_text(encoding="utf-8")
    served = routes_served()
    assert len(served) >= 20 and "GET /v1/search" in served
    missing = [f"`{r}`" for r in (*served, *APP_ROUTES) if f"`{r}`" not in page]
    named = asyncio.run(mcp_names())
    assert {"MCP `plan`", "MCP `search`", "`appmem://apps/{package}/map`"} <= set(named)
    missing += [n for n in named if n not in page]
    assert missing == []
