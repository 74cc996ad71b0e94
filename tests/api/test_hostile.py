"""A hand-made sweep of hostile requests over the real app, graph, Redis and vectors, beside the generated
ones of test_fuzz.py: what a generator rarely makes (entity bombs, external entities, nesting deep enough
to hit Python's recursion limit, the largest body allowed, bad ids) is each a 4xx naming no stack frame."""
from __future__ import annotations

import json

import pytest

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
                       "started": "x", "ended": "y", "status": "done",
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
