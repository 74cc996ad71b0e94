"""The MCP server through the official `mcp` client: every tool called, its answer checked against the
service's, in process and over stdio (`appmem mcp --server`, proxying to the API on a real socket); each app's
document and map listed and read as resources, and the prompt on using a plan, over stdio and over the API's
own /mcp endpoint with a key (refused without one)."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
import httpx
import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from appmem.api.mcp_server import build_mcp
from tests.api.conftest import CALENDAR
from tests.conftest import DROIDTASK

TOOLS = {"plan", "locate", "hints", "doc", "search", "apps"}
DOC, MAP = f"appmem://apps/{CALENDAR}/doc", f"appmem://apps/{CALENDAR}/map"


def first_state() -> tuple[str, str]:
    """A task of the DroidTask gold and the screen it starts on (an AutoDroid HTML state)."""
    task = json.loads((DROIDTASK / "calendar" / "tasks.json").read_text())[0]
    return task["task"], task["profile"][0]["state"]


def calls(task: str, html: str) -> dict[str, tuple[str, dict]]:
    return {"plan": ("plan", {"task": task, "app": "calendar", "screen_html": html}),
            "locate": ("locate", {"app": "calendar", "screen_html": html}),
            "hints": ("hints", {"task": task, "app": "calendar", "screen_html": html}),
            "doc": ("doc", {"app": "calendar", "budget": 500}),
            "search": ("search", {"text": "delete all events", "app": "calendar", "k": 3}),
            "apps": ("apps", {})}


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
            "search": {"hits": memory.search("delete all events", "element", "calendar", 3)},
            "apps": {"apps": memory.apps()}}


def check(got: dict[str, dict], want: dict[str, dict]) -> None:
    assert got["plan"] == want["plan"] and got["plan"]["package"] == CALENDAR and got["plan"]["steps"]
    assert got["plan"]["start"]["match"] == "exact" and got["plan"]["hints"] is not None
    assert got["locate"] == want["locate"] and got["locate"]["match"] == "exact"
    assert got["hints"] == want["hints"] and got["hints"]["screen_id"] == got["locate"]["screen_id"]
    assert got["doc"] == want["doc"] and got["doc"]["package"] == CALENDAR and got["doc"]["screens"]
    assert got["search"] == want["search"] and len(got["search"]["hits"]) == 3
    assert {h["package"] for h in got["search"]["hits"]} == {CALENDAR}
    assert got["apps"] == want["apps"] and [a["package"] for a in got["apps"]["apps"]] == [CALENDAR]


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


async def refusals(server) -> dict[str, str]:
    """What each tool answers to a call the API would refuse: the error text the agent reads."""
    bad = {"unknown app": ("plan", {"task": "x", "app": "com.nobody.at.all"}),
           "unknown screen": ("plan", {"task": "x", "app": "calendar", "screen_id": "nope"}),
           "malformed dump": ("locate", {"screen_xml": "<hierarchy><node"}),
           "empty task": ("hints", {"task": "", "app": "calendar", "screen_xml": "<hierarchy/>"}),
           "long task": ("plan", {"task": "x" * 2001, "app": "calendar"}),
           "k below 1": ("search", {"text": "about", "k": -1}),
           "long app": ("search", {"text": "about", "app": "a" * 301}),
           "budget 0": ("doc", {"app": "calendar", "budget": 0})}
    async with Client(server) as client:
        out = {}
        for name, (tool, args) in bad.items():
            result = await client.call_tool(tool, args)
            assert result.is_error, (name, result.structured_content)
            out[name] = result.content[0].text
    return out


def test_a_call_the_api_would_refuse_is_a_tool_error_naming_the_problem(memory):
    """Not the SDK's bare "Error executing tool plan" (its answer to a crash), nor a negative k slicing the
    hits: each refusal names its argument or what memory lacks, as the API's 4xx does."""
    said = anyio.run(refusals, build_mcp(lambda: memory))
    assert "com.nobody.at.all" in said["unknown app"] and "nope" in said["unknown screen"]
    assert "XML" in said["malformed dump"]
    assert "task" in said["empty task"] and "task" in said["long task"]
    assert "k" in said["k below 1"] and "budget" in said["budget 0"]
    assert "app\n" in said["long app"] and "300" in said["long app"]  # the API's bound, not "unknown app"
    assert all(text.strip() != f"Error executing tool {tool}" for text, tool in
               zip(said.values(), ("plan", "plan", "locate", "hints", "plan", "search", "search", "doc")))


async def resources_and_prompt(server) -> dict:
    """What an agent finds besides the tools: the resources listed and their templates, each of calendar's
    read, an unknown app's refused, and the prompt on using a plan."""
    async with Client(server) as client:
        listed = {str(r.uri): r for r in (await client.list_resources()).resources}
        templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
        read = {uri: json.loads((await client.read_resource(uri)).contents[0].text) for uri in (DOC, MAP)}
        short = json.loads((await client.read_resource("appmem://apps/calendar/doc")).contents[0].text)
        try:
            await client.read_resource("appmem://apps/com.nobody.at.all/map")
            unknown = None
        except Exception as exc:  # the SDK raises the server's error for a resource it could not read
            unknown = str(exc)
        prompts = {p.name: p for p in (await client.list_prompts()).prompts}
        prompt = await client.get_prompt("use_a_plan", {"task": "delete all events", "app": CALENDAR})
    return {"listed": listed, "templates": templates, "read": read, "short": short, "unknown": unknown,
            "prompts": prompts, "prompt": prompt.messages[0].content.text}


def check_resources(got: dict, memory) -> None:
    assert set(got["listed"]) == {DOC, MAP} and all(r.mime_type == "application/json" for r in got["listed"].values())
    assert got["templates"] == {"appmem://apps/{package}/doc", "appmem://apps/{package}/map"}
    assert got["read"][DOC] == memory.doc(CALENDAR) == got["short"] and got["read"][DOC]["screens"]
    assert got["read"][MAP] == json.loads(json.dumps(memory.app_map(CALENDAR)))
    assert got["read"][MAP]["package"] == CALENDAR and got["read"][MAP]["screens"] and got["read"][MAP]["transitions"]
    assert got["unknown"] is not None and "com.nobody.at.all" in got["unknown"]
    assert set(got["prompts"]) == {"use_a_plan"}
    assert "delete all events" in got["prompt"] and CALENDAR in got["prompt"] and "came_from" in got["prompt"]


def test_each_apps_document_and_map_are_resources_and_a_prompt_says_how_to_use_a_plan(memory):
    check_resources(anyio.run(resources_and_prompt, build_mcp(lambda: memory)), memory)


def test_resources_and_the_prompt_over_stdio_through_the_api(served, memory, stack_env):
    url, key = served
    appmem = str(Path(sys.executable).with_name("appmem"))
    params = StdioServerParameters(command=appmem, args=["mcp", "--server", url, "--key", key],
                                   env={**stack_env, "PATH": os.environ.get("PATH", "")})
    check_resources(anyio.run(resources_and_prompt, params), memory)


def over_http(url: str, key: str | None):
    """The API's own /mcp endpoint through the SDK's streamable HTTP transport, with the key as a bearer."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return streamable_http_client(f"{url}/mcp/", http_client=httpx2.AsyncClient(headers=headers, timeout=60))


def test_resources_and_tools_over_the_apis_mcp_endpoint_need_a_key(served, memory, keys):
    url, key = served
    check_resources(anyio.run(resources_and_prompt, over_http(url, key)), memory)
    listed, got = anyio.run(answers, over_http(url, key))
    assert listed == TOOLS
    check(got, expected(memory))
    # a resource is read behind the same keys as a tool: none, or one without the `plan` scope, is refused
    read = {"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": DOC}}
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    contributor = keys.create("mcp-contributor", "contribute")[1]
    assert httpx.post(f"{url}/mcp/", json=read, headers=headers).status_code == 401
    assert httpx.post(f"{url}/mcp/", json=read, headers={**headers, "Authorization": f"Bearer {contributor}"}
                      ).status_code == 403
