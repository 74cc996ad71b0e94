"""The HTTP API over the real graph, Redis, vectors and embedding model: keys, scopes, limits, bad input."""
from __future__ import annotations

import json
import re
import time

import pytest
from fastapi.encoders import jsonable_encoder

from appmem.contract import Plan
from tests.api.conftest import CALENDAR, tarball


def test_a_plan_over_http_is_the_plan_json(client, bearer):
    r = client.post("/v1/plan", json={"task": "change the view to yearly", "app": "calendar"},
                    headers=bearer())
    assert r.status_code == 200, r.text
    plan = r.json()
    assert plan["package"] == CALENDAR and plan["llm_calls"] == 0
    assert [s["element"]["label"] for s in plan["steps"]] == ["Change view", "Yearly view"]
    assert plan["start"]["match"] == "entry" and plan["route"] == "found"
    # the route answers the Plan's own JSON: the bytes FastAPI's encoding of the model gave
    assert r.headers["content-type"] == "application/json"
    assert r.content == json.dumps(jsonable_encoder(Plan.model_validate_json(r.content)), ensure_ascii=False,
                                   allow_nan=False, separators=(",", ":")).encode()


def test_a_plan_request_may_say_which_step_the_agent_took_to_its_screen(client, bearer):
    first = client.post("/v1/plan", json={"task": "change the view to yearly", "app": "calendar"},
                        headers=bearer()).json()["steps"][0]
    came_from = {"screen_id": first["screen_id"], "action": first["action"], "element_id": first["element"]["id"]}
    body = {"task": "change the view to yearly", "app": "calendar", "screen_id": first["to_screen"]}
    r = client.post("/v1/plan", json={**body, "came_from": came_from}, headers=bearer())
    assert r.status_code == 200, r.text
    # an action with one recorded outcome lands there whatever came before: the same plan
    assert r.json()["route"] == "found"
    assert r.json()["steps"] == client.post("/v1/plan", json=body, headers=bearer()).json()["steps"]


def test_a_plan_request_may_name_steps_that_failed_and_the_plan_goes_another_way(client, bearer):
    body = {"task": "change the view to yearly", "app": "calendar"}
    first = client.post("/v1/plan", json=body, headers=bearer()).json()["steps"][0]
    failed = {"screen_id": first["screen_id"], "action": first["action"], "element_id": first["element"]["id"]}
    r = client.post("/v1/plan", json={**body, "avoid": [failed]}, headers=bearer())
    assert r.status_code == 200, r.text
    assert all((s["screen_id"], s["action"], (s["element"] or {}).get("id", "")) != tuple(failed.values())
               for s in r.json()["steps"])


def test_missing_wrong_and_revoked_keys_get_401(client, bearer, keys):
    body = {"task": "delete all events", "app": "calendar"}
    assert client.post("/v1/plan", json=body).status_code == 401
    assert client.post("/v1/plan", json=body, headers={"Authorization": "Bearer am_x_nope"}).status_code == 401
    headers = bearer()
    assert client.post("/v1/plan", json=body, headers=headers).status_code == 200
    key_id = headers["Authorization"].split("_")[1]
    keys.revoke(key_id)
    r = client.post("/v1/plan", json=body, headers=headers)
    assert r.status_code == 401 and r.json()["error"] == "unauthorized"


def test_a_missing_scope_gets_403(client, bearer):
    assert client.post("/v1/traces", json={}, headers=bearer("plan")).status_code == 403
    assert client.post("/v1/plan", json={"task": "x"}, headers=bearer("contribute")).status_code == 403
    assert client.get("/v1/apps", headers=bearer("admin")).status_code == 200


def test_over_its_rate_a_key_gets_429_with_retry_after(client, bearer):
    headers = bearer("plan", rate=3)
    limited = None
    for _ in range(50):  # 4 requests in one second: a loaded machine may spread the first ones over several
        if (answer := client.get("/v1/apps", headers=headers)).status_code == 429:
            limited = answer
            break
        assert answer.status_code == 200
    assert limited is not None and int(limited.headers["Retry-After"]) >= 1
    time.sleep(1.1)
    assert client.get("/v1/apps", headers=headers).status_code == 200


def test_an_oversized_body_gets_413(client, bearer, settings):
    big = {"task": "x" * 10, "screen_xml": "<" * (settings.max_body_bytes + 10)}
    r = client.post("/v1/plan", content=json.dumps(big), headers={**bearer(), "Content-Type": "application/json"})
    assert r.status_code == 413 and r.json()["error"] == "payload_too_large"


@pytest.mark.parametrize("body, field", [
    ({"app": "calendar"}, "body.task"),
    ({"task": ""}, "body.task"),
    ({"task": "x", "unknown": 1}, "body.unknown"),
    ({"task": 5}, "body.task"),
    ({"task": "x", "screen_xml": "<not xml"}, "screen_xml"),
    ({"task": "x", "came_from": {"screen_id": "s", "action": "fly"}}, "body.came_from.action"),
    ({"task": "x", "avoid": [{"screen_id": "s", "action": "tap"}, {"screen_id": "", "action": "tap"}]},
     "body.avoid.1.screen_id"),
])
def test_malformed_bodies_get_422_naming_the_field(client, bearer, body, field):
    r = client.post("/v1/plan", json=body, headers=bearer())
    assert r.status_code == 422, r.text
    assert field in [d["field"] for d in r.json()["detail"]]


def test_bad_json_and_unknown_apps_are_client_errors(client, bearer):
    r = client.post("/v1/plan", content=b"{nope", headers={**bearer(), "Content-Type": "application/json"})
    assert r.status_code == 422
    r = client.post("/v1/plan", json={"task": "x", "app": "no.such.app"}, headers=bearer())
    assert r.status_code == 404 and "no.such.app" in r.json()["detail"]
    # a task that ends naming an app memory does not know is for that app, not for the best app for its words
    r = client.post("/v1/plan", json={"task": "delete all events in com.example.nobody"}, headers=bearer())
    assert r.status_code == 404 and "com.example.nobody" in r.json()["detail"], r.text
    for task in ("delete all events in www.example.com", "delete all events in backup.2024.csv"):  # no package
        assert client.post("/v1/plan", json={"task": task}, headers=bearer()).status_code == 200


def test_locate_apps_and_screens(client, bearer, memory):
    apps = client.get("/v1/apps", headers=bearer()).json()["apps"]
    assert [a["package"] for a in apps] == [CALENDAR]
    plan = client.post("/v1/plan", json={"task": "delete all events", "app": "calendar"}, headers=bearer()).json()
    screen_id = plan["steps"][0]["screen_id"]
    screen = client.get(f"/v1/apps/{CALENDAR}/screens/{screen_id}", headers=bearer())
    assert screen.status_code == 200 and screen.json()["elements"] and screen.json()["exits"]
    assert client.get(f"/v1/apps/{CALENDAR}/screens/nope", headers=bearer()).status_code == 404


def test_health_and_metrics(client, bearer):
    deadline = time.monotonic() + 60
    while (health := client.get("/healthz")).json()["status"] == "loading" and time.monotonic() < deadline:
        time.sleep(0.1)
    assert health.status_code == 200 and health.json() == {"status": "ready", "graph": "ok", "redis": "ok",
                                                           "vectors": "ok"}
    client.post("/v1/plan", json={"task": "delete all events", "app": "calendar"}, headers=bearer())
    assert client.get("/metrics").status_code == 401 and client.get("/metrics", headers=bearer()).status_code == 403
    text = client.get("/metrics", headers=bearer("metrics")).text
    assert 'appmem_plans_total{route="found",source="memory"}' in text
    assert 'appmem_requests_total{method="POST",route="/v1/plan",status="200"}' in text
    assert "appmem_request_seconds_bucket" in text


def test_openapi_docs_are_served(client):
    assert client.get("/docs").status_code == 200
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/v1/plan", "/v1/locate", "/v1/hints", "/v1/search", "/v1/apps/{app}/doc", "/v1/traces", "/v1/traces/{trace_id}", "/v1/corrections", "/v1/apps",
            "/v1/apps/{package}/screens/{screen_id}"} <= set(paths)
    answer = paths["/v1/plan"]["post"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert answer == {"$ref": "#/components/schemas/Plan"}  # the schema of the JSON the route answers itself


def test_every_reference_of_the_openapi_document_resolves(client):
    """POST /v1/traces documents its body by hand (a run trace or a tarball): its steps were a `$ref` to a
    RunStep the document did not hold, so clients and fuzzers reading it skipped them. /metrics is text."""
    document = client.get("/openapi.json").json()
    refs = set(re.findall(r'"\$ref": "#/components/schemas/([^"]+)"', json.dumps(document)))
    assert "RunStep" in refs and refs <= set(document["components"]["schemas"])
    assert list(document["paths"]["/metrics"]["get"]["responses"]["200"]["content"]) == ["text/plain"]



@pytest.mark.parametrize("body, problem", [
    (tarball({"../evil/utg.js": b"{}"}), "unsafe path"),
    (tarball({"/etc/utg.js": b"{}"}), "unsafe path"),
    (tarball({"notes.txt": b"hi"}), "no utg.js"),
    (b"not a tarball", "not a gzip-compressed tar"),
])
def test_hostile_or_malformed_tarballs_are_refused_before_queuing(client, bearer, body, problem):
    r = client.post("/v1/traces", content=body, headers={**bearer("contribute"), "Content-Type": "application/gzip"})
    assert r.status_code == 422 and r.json()["error"] == "invalid_request"
    assert [d["field"] for d in r.json()["detail"]] == ["tarball"] and problem in r.json()["detail"][0]["problem"]


def test_contributions_need_a_known_body_type_and_a_valid_run(client, bearer):
    headers = bearer("contribute")
    assert client.post("/v1/traces", content=b"x", headers={**headers, "Content-Type": "text/plain"}).status_code == 415
    r = client.post("/v1/traces", json={"format": "appmem-run/1", "task": "x"}, headers=headers)
    assert r.status_code == 422 and "package" in json.dumps(r.json())
    assert client.get("/v1/traces/abc123", headers=headers).status_code == 404


def test_the_mcp_endpoint_is_behind_the_keys(client, bearer):
    rpc = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
           "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                      "clientInfo": {"name": "test", "version": "1"}}}
    accept = {"Accept": "application/json, text/event-stream"}
    assert client.post("/mcp/", json=rpc, headers=accept).status_code == 401
    assert client.post("/mcp/", json=rpc, headers={**accept, **bearer("contribute")}).status_code == 403
    r = client.post("/mcp/", json=rpc, headers={**accept, **bearer("plan")})
    assert r.status_code == 200, r.text
    assert r.json()["result"]["serverInfo"]["name"] == "appmem"
