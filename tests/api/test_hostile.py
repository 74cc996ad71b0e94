"""A hand-made sweep of hostile requests over the real app, graph, Redis and vectors, beside the generated
ones of test_fuzz.py: what a generator rarely makes (entity bombs, external entities, nesting deep enough
to hit Python's recursion limit, the largest body allowed, bad ids) is each a 4xx naming no stack frame."""
from __future__ import annotations

import json

import pytest

from appmem.formats.ui import stable_id
from tests.api.conftest import CALENDAR

LOL = ('<?xml version="1.0"?><!DOCTYPE l [<!ENTITY l0 "lol">'
       + "".join(f'<!ENTITY l{i} "{f"&l{i - 1};" * 10}">' for i in range(1, 10))
       + ']><hierarchy><node text="&l9;" package="a.b"/></hierarchy>')
EXTERNAL = ('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
            '<hierarchy><node text="&e;" package="a.b"/></hierarchy>')
DEEP_XML = "<hierarchy>" + "<node>" * 20000 + "</node>" * 20000 + "</hierarchy>"
DEEP_HTML = "<div>" * 20000 + "</div>" * 20000
DEEP_JSON = "[" * 100000 + "]" * 100000
DEEP_TASK = '{"task":' + '{"a":' * 5000 + "1" + "}" * 5000 + "}"


def run_trace(xml: str) -> str:
    return json.dumps({"format": "appmem-run/1", "task": "t", "package": "a.b", "app_version": "1", "device": "d",
                       "started": "2024-01-01T00:00:00Z", "ended": "2024-01-01T00:00:09Z", "status": "done",
                       "steps": [{"index": 0, "action": "tap", "before_xml": xml, "after_xml": xml}]})


def plan(**body) -> str:
    return json.dumps({"task": "delete all events", **body})


CASES = [
    ("POST", "/v1/plan", DEEP_JSON), ("POST", "/v1/plan", DEEP_TASK),
    ("POST", "/v1/plan", json.dumps({"task": "x" * 1_900_000})), ("POST", "/v1/plan", json.dumps({"task": 5})),
    ("POST", "/v1/plan", plan(app="../../etc")), ("POST", "/v1/plan", plan(screen_xml=LOL)),
    ("POST", "/v1/plan", plan(screen_xml=EXTERNAL)), ("POST", "/v1/plan", plan(screen_xml=DEEP_XML)),
    ("POST", "/v1/plan", plan(screen_html=DEEP_HTML)), ("POST", "/v1/plan", plan(screen_html="<" * 100000)),
    ("POST", "/v1/plan", plan(app="calendar", screen_id="z" * 600)),
    ("POST", "/v1/plan", plan(app="calendar", activity=["x"])), ("POST", "/v1/plan", "\x00\xff"),
    ("POST", "/v1/locate", json.dumps({"screen_xml": LOL})),
    ("POST", "/v1/locate", json.dumps({"screen_xml": DEEP_XML, "app": "calendar"})),
    ("POST", "/v1/locate", json.dumps({"screen_html": DEEP_HTML})),
    ("POST", "/v1/hints", json.dumps({"task": "x", "screen_xml": LOL, "app": "calendar"})),
    ("POST", "/v1/hints", json.dumps({"task": "x", "screen_html": DEEP_HTML})),
    ("GET", "/v1/apps/no.such/doc?budget=-5", None), ("GET", "/v1/apps/calendar/doc?budget=" + "9" * 30, None),
    ("GET", "/v1/search?text=x&k=100000000", None), ("GET", "/v1/search?text=x&kind=nope", None),
    ("GET", f"/v1/apps/{CALENDAR}/screens/" + "%2e%2e%2f" * 10, None), ("GET", "/v1/apps/%00/screens/x", None),
    ("GET", "/v1/traces/" + "x" * 5000, None), ("GET", "/v1/traces/0123456789abcdef", None),
    ("POST", "/v1/traces", DEEP_JSON), ("POST", "/v1/traces", DEEP_TASK),
    ("POST", "/v1/traces", run_trace(LOL)), ("POST", "/v1/traces", run_trace(DEEP_XML)),
    ("POST", "/v1/traces", run_trace(EXTERNAL)),
    ("POST", "/v1/corrections", DEEP_TASK), ("POST", "/v1/corrections", json.dumps({"x": 1})),
    ("DELETE", "/v1/contributors/" + "x" * 3000, None), ("DELETE", "/v1/contributors/0123abcd", None),
    ("GET", "/apps/no.such/map.json", None), ("GET", f"/apps/{CALENDAR}/route?source=x&target=y", None),
    ("GET", f"/apps/{CALENDAR}/screens/%ff%fe.json", None),
]


@pytest.mark.parametrize("method,path,body", CASES, ids=[f"{i}-{c[0]}-{c[1][:28]}" for i, c in enumerate(CASES)])
def test_a_hostile_request_is_a_client_error_naming_no_stack_frame(client, bearer, method, path, body):
    headers = {**bearer("admin"), "Content-Type": "application/json"}
    content = body.encode("utf-8", "surrogatepass") if body is not None else None
    r = client.request(method, path, content=content, headers=headers)
    assert 400 <= r.status_code < 500 or (r.status_code == 200 and "route" in path), (r.status_code, r.text[:300])
    assert "Traceback" not in r.text and "File \"" not in r.text


SHOWN = ('<hierarchy><node package="a.b" class="android.widget.Button" text="OK" clickable="true" '
         'bounds="{}"/></hierarchy>')


def shown_run(bounds: str = "[0,0][10,10]", **fields) -> dict:
    """A run trace of app a.b whose dumps show it (so memory need not hold it) with these fields."""
    return {**json.loads(run_trace(SHOWN.format(bounds))), **fields}


@pytest.mark.parametrize("fields,bounds,where,problem", [
    # a 500 (OverflowError): year 1 at UTC+1 is year 0 in UTC
    ({"ended": "0001-01-01T00:00:00+01:00", "recalled_task": "0123456789abcdef"}, "[0,0][10,10]", "ended",
     "'0001-01-01T00:00:00+01:00' is out of range once in UTC (years 1 to 9999)"),
    # each a 202, then a contribution the worker failed: the graph's datetime() reads none of them
    ({"started": "2024-01-01T25:00:00"}, "[0,0][10,10]", "started", "'2024-01-01T25:00:00' is not a time"),
    ({"started": "9999999-01-01"}, "[0,0][10,10]", "started", "'9999999-01-01' is not a time"),
    ({"ended": "garbage"}, "[0,0][10,10]", "ended", "'garbage' is not a time"),
    # a 202, then "internal error (OverflowError)": the graph stores 64-bit integers
    ({}, "[99999999999999999999,0][1,1]", "run step 0 before_xml",
     "node has malformed bounds '[99999999999999999999,0][1,1]'"),
    ({}, "[0,0][2147483648,1]", "run step 0 before_xml", "node has malformed bounds '[0,0][2147483648,1]'"),
])
def test_a_run_the_graph_cannot_store_is_refused_at_the_edge_naming_the_field(client, bearer, fields, bounds, where,
                                                                                problem):
    r = client.post("/v1/traces", content=json.dumps(shown_run(bounds, **fields)),
                    headers={**bearer("contribute"), "Content-Type": "application/json"})
    assert r.status_code == 422, r.text
    assert r.json()["error"] == "invalid_request"
    [detail] = r.json()["detail"]
    assert detail["field"] == where and detail["problem"].startswith(problem), detail


@pytest.mark.parametrize("route", ["/v1/plan", "/v1/locate", "/v1/hints"])
def test_a_dump_with_a_coordinate_of_thousands_of_digits_is_malformed_bounds(client, bearer, route):
    """int() of a string past 4300 digits raises ValueError, which the plan routes answered with a 500."""
    bounds = f"[{'9' * 5000},0][1,1]"
    body = {"screen_xml": SHOWN.format(bounds), **({} if route == "/v1/locate" else {"task": "tap OK"})}
    r = client.post(route, json=body, headers=bearer())
    assert (r.status_code, r.json()["error"]) == (422, "invalid_request"), r.text
    [detail] = r.json()["detail"]
    assert detail["field"] == "screen_xml" and detail["problem"].startswith("node has malformed bounds '[999")


def test_android_s_own_extreme_coordinates_are_bounds():
    """A view laid out nowhere reports Android's int extremes (recordings hold them): those are still bounds."""
    from appmem.formats.uixml import parse_bounds

    assert parse_bounds("[2147483647,2147483647][-2147483648,-2147483648]").as_list() == [2**31 - 1] * 2 + [-2**31] * 2
    assert parse_bounds("[2147483648,0][1,1]") is None and parse_bounds("[0,0][1,-2147483649]") is None


def test_a_run_s_times_are_stored_in_the_graph_s_one_form():
    """Every form graph/times.py reads is accepted, and the trace carries it in canonical UTC (what the graph's
    datetime() parses: '2023-10-19 02:52:06' and DroidBot's tag failed the worker's write); the id is the one
    the run's own text gave before."""
    from appmem.ingest.run import run_trace as trace_of, validate_run

    run = validate_run(shown_run(started="2023-10-19 02:52:06", ended="2023-10-19_025209"), "body")
    imported = trace_of(run)
    assert (imported.trace.started, imported.trace.ended) == ("2023-10-19T02:52:06Z", "2023-10-19T02:52:09Z")
    assert {s.at for s in imported.trace.steps} == {"2023-10-19T02:52:09Z"}
    assert imported.trace.id == stable_id("trace", "agent", "local", "a.b", "d", "2023-10-19 02:52:06", "t")


def exchange(url: str, raw: bytes) -> tuple[int, dict[str, str], bytes]:
    """One raw request on a fresh connection (what no HTTP client library would send): status, headers, body."""
    import socket
    from urllib.parse import urlsplit

    where = urlsplit(url)
    with socket.create_connection((where.hostname, where.port), timeout=30) as sock:
        sock.sendall(raw)
        data = b""
        while b"\r\n\r\n" not in data or len(data.partition(b"\r\n\r\n")[2]) < length(data):
            more = sock.recv(65536)
            if not more:
                break
            data += more
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split()[1]), headers, body


def length(data: bytes) -> int:
    head = data.partition(b"\r\n\r\n")[0].decode("latin-1").lower()
    return next((int(line.split(":", 1)[1]) for line in head.split("\r\n") if line.startswith("content-length:")), 0)


MALFORMED_HTTP = {
    "raw bytes in the path": b"GET /v1/apps/\xff\xfe/doc HTTP/1.1\r\nHost: x\r\n\r\n",
    "a method HTTP lacks": b"FOO /v1/apps HTTP/1.1\r\nHost: x\r\n\r\n",
    "a control character in a header": b"POST /v1/plan HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\x7f\r\n"
                                       b"Content-Length: 2\r\n\r\n{}",
    "two lengths": b"POST /v1/plan HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
    "a length and chunks": b"POST /v1/plan HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
                           b"0\r\n\r\n",
    "a bad chunk": b"POST /v1/plan HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
    "HTTP/9.9": b"GET /v1/apps HTTP/9.9\r\nHost: x\r\n\r\n",
}


@pytest.mark.parametrize("raw", MALFORMED_HTTP.values(), ids=MALFORMED_HTTP.keys())
def test_a_request_the_http_parser_cannot_read_gets_the_api_s_json_400(served, raw):
    """uvicorn answered these itself, before the app, with a text/plain "Invalid HTTP request received."."""
    status, headers, body = exchange(served[0], raw)
    assert (status, headers["content-type"]) == (400, "application/json"), body
    assert json.loads(body) == {"error": "bad_request", "detail": "malformed HTTP request: its request line, a "
                                                                  "header or its chunked body could not be parsed"}


def test_a_websocket_upgrade_is_answered_as_the_plain_request_it_also_is(served):
    """uvicorn's WebSocket side refused it with an empty 403 (the API has no WebSocket route)."""
    url, key = served
    status, headers, body = exchange(url, b"GET /v1/apps HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                                          b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                                          b"Sec-WebSocket-Version: 13\r\nAuthorization: Bearer " + key.encode()
                                          + b"\r\n\r\n")
    assert (status, headers["content-type"]) == (200, "application/json") and "apps" in json.loads(body)


def test_the_mcp_endpoint_refuses_in_json_what_it_does_not_take(client, bearer):
    """A GET opened the SDK's event stream, which the stateless endpoint never writes to: it stayed open as long
    as the client kept it. A POST that is not JSON got a bare text/plain 400."""
    key = bearer("plan")
    r = client.get("/mcp/", headers={**key, "Accept": "text/event-stream"})
    assert (r.status_code, r.headers["allow"]) == (405, "POST")
    assert r.json() == {"error": "method_not_allowed",
                        "detail": "this MCP endpoint has no event stream: POST JSON-RPC requests to it"}
    for ctype in ({}, {"Content-Type": "text/plain"}):
        r = client.post("/mcp/", content=b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}',
                        headers={**key, **ctype, "Accept": "application/json, text/event-stream"})
        assert r.status_code == 415 and r.json() == {
            "error": "unsupported_media_type", "detail": "send MCP requests as application/json (JSON-RPC)"}
    assert client.get("/mcp/").status_code == 401  # the key first, as before


def test_a_200_kb_text_in_one_view_is_answered_in_5_s_and_healthz_in_1_s_meanwhile(served, keys, settings, store):
    """One view's text of 200 KB, made of what the scrubber's URL pattern took quadratic time on ("a." ran
    0.5 s at 16 KB, 2.1 s at 32 KB): the text is clipped (formats/ui.py TEXT_MAX) before it is scrubbed, in a
    worker thread, so the contribution is answered (202) within 5 s and /healthz answers within 1 s while
    it is handled."""
    import threading
    import time

    import httpx

    url, _ = served
    record, contributor = keys.create("hostile-text", "contribute", 1000)
    xml = SHOWN.format("[0,0][10,10]").replace('text="OK"', 'text="' + "a." * 100_000 + '"')
    body = run_trace(xml)
    assert len(body) > 400_000
    answer: dict = {}
    with httpx.Client(base_url=url, timeout=10) as client:  # ready: every app preloaded
        deadline = time.monotonic() + 120
        while client.get("/healthz").status_code != 200 and time.monotonic() < deadline:
            time.sleep(0.2)

    def post() -> None:
        started = time.monotonic()
        r = httpx.post(f"{url}/v1/traces", content=body, timeout=60,
                       headers={"Authorization": f"Bearer {contributor}", "Content-Type": "application/json"})
        answer.update(status=r.status_code, seconds=time.monotonic() - started, text=r.text)

    poster = threading.Thread(target=post)
    poster.start()
    health = []
    with httpx.Client(base_url=url, timeout=10) as client:
        while not health or poster.is_alive():
            started = time.monotonic()
            assert client.get("/healthz").status_code == 200
            health.append(time.monotonic() - started)
            time.sleep(0.05)
    poster.join()
    assert answer["status"] in (202, 422) and answer["seconds"] < 5, answer
    assert max(health) < 1, health
    # no worker consumes here: the parked contribution is purged with its key, so a later module's ingest
    # worker finds nothing of it to ingest
    from appmem.api.contrib import purge

    assert purge(settings, store, keys.r, record.id)["contributions"] == int(answer["status"] == 202)
