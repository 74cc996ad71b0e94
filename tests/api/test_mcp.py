"""The MCP server through the official `mcp` client: every tool called, its answer checked against the
service's, in process and over stdio (`appmem mcp --server`, proxying to the API on a real socket)."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from api.mcp_server import build_mcp
from tests.api.conftest import CALENDAR
from tests.conftest import DROIDTASK

TOOLS = {"plan", "locate", "hints", "doc", "search"}


def first_state() -> tuple[str, str]:
    """A task of the DroidTask gold and the screen it starts on (an AutoDroid HTML state)."""
    task = json.loads((DROIDTASK / "calendar" / "tasks.json").read_text())[0]
    return task["task"], task["profile"][0]["state"]


def calls(task: str, html: str) -> dict[str, tuple[str, dict]]:
    return {"plan": ("plan", {"task": task, "app": "calendar", "screen_html": html}),
            "locate": ("locate", {"app": "calendar", "screen_html": html}),
            "hints": ("hints", {"task": task, "app": "calendar", "screen_html": html}),
            "doc": ("doc", {"app": "calendar", "budget": 500}),
            "search": ("search", {"text": "delete all events", "app": "calendar", "k": 3})}


async def answers(server) -> tuple[set[str], dict[str, dict]]:
    task, html = first_state()
    async with Client(server) as client:
        listed = {t.name for t in (await client.list_tools()).tools}
        out = {}
        for name, (tool, args) in calls(task, html).items():
            result = await client.call_tool(tool, args)
            assert not result.is_error, (name, result.content)
            out[name] = result.structured_content
    return listed, out


def expected(memory) -> dict[str, dict]:
    task, html = first_state()
    return {"plan": memory.plan(task, "calendar", screen_html=html).model_dump(mode="json"),
            "locate": memory.locate("calendar", screen_html=html).model_dump(mode="json"),
            "hints": memory.hints(task, "calendar", screen_html=html).model_dump(mode="json"),
            "doc": memory.doc("calendar", 500),
            "search": {"hits": memory.search("delete all events", "element", "calendar", 3)}}


def check(got: dict[str, dict], want: dict[str, dict]) -> None:
    assert got["plan"] == want["plan"] and got["plan"]["package"] == CALENDAR and got["plan"]["steps"]
    assert got["plan"]["start"]["match"] == "exact" and got["plan"]["hints"] is not None
    assert got["locate"] == want["locate"] and got["locate"]["match"] == "exact"
    assert got["hints"] == want["hints"] and got["hints"]["screen_id"] == got["locate"]["screen_id"]
    assert got["doc"] == want["doc"] and got["doc"]["package"] == CALENDAR and got["doc"]["screens"]
    assert got["search"] == want["search"] and len(got["search"]["hits"]) == 3
    assert {h["package"] for h in got["search"]["hits"]} == {CALENDAR}


def test_every_tool_answers_in_process_as_the_service_does(memory):
    listed, got = anyio.run(answers, build_mcp(lambda: memory))
    assert listed == TOOLS
    check(got, expected(memory))


def test_every_tool_answers_over_stdio_through_the_api(served, memory, stack_env):
    url, key = served
    appmem = str(Path(sys.executable).with_name("appmem"))
    params = StdioServerParameters(command=appmem, args=["mcp", "--server", url, "--key", key],
                                   env={**stack_env, "PATH": os.environ.get("PATH", "")})
    listed, got = anyio.run(answers, params)
    assert listed == TOOLS
    check(got, expected(memory))
