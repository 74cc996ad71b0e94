"""The API gives an error its status by class (appmem/errors.py), never by the class's name: a subclass
of NotFound defined anywhere is a 404, and the body names the kind. No server: a bare FastAPI app."""
from __future__ import annotations

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from appmem.agent.planner import PlanningError
from pydantic import BaseModel

from appmem.api.app import UNREADABLE_BODY, install_errors
from appmem.errors import (ConfigError, Conflict, GraphError, InputFormatError, InvalidInput, LeaseError,
                           NotFound)


class NoSuchWidget(NotFound):
    """A NotFound no mapping names."""


CASES = [
    (NotFound("no app 'x' in memory"), 404, "not_found"),
    (NoSuchWidget("no widget"), 404, "not_found"),
    (PlanningError("unknown start screen 'abc'"), 404, "not_found"),
    (Conflict("screen id taken"), 409, "conflict"),
    (InvalidInput("task", "the task is empty"), 422, "invalid_request"),
    (InputFormatError("screen_xml", "malformed XML"), 422, "invalid_request"),
    (LeaseError("lease lost"), 503, "unavailable"),
    (ConfigError("no model"), 503, "misconfigured"),
    (GraphError("write refused"), 400, "bad_request"),
]


class Body(BaseModel):
    text: str


@pytest.fixture(scope="module")
def client() -> TestClient:
    app = FastAPI()
    install_errors(app)

    @app.get("/raise/{n}")
    def raise_case(n: int) -> None:
        raise CASES[n][0]

    @app.post("/body")
    def take_body(body: Body) -> None:
        return None

    return TestClient(app, raise_server_exceptions=False)


@pytest.mark.parametrize("n", range(len(CASES)), ids=[type(c[0]).__name__ for c in CASES])
def test_an_error_gets_the_status_of_its_class(client, n):
    exc, status, code = CASES[n]
    r = client.get(f"/raise/{n}")
    assert (r.status_code, r.json()["error"]) == (status, code)
    if isinstance(exc, InvalidInput):
        assert r.json()["detail"] == [{"field": exc.source, "problem": exc.problem}]
    elif status != 503:
        assert r.json()["detail"] == str(exc)



def test_a_body_that_is_not_text_says_so(client):
    """FastAPI's own answer is "There was an error parsing the body", which names nothing."""
    r = client.post("/body", content=b'{"text": "\xff\xfe caf\xe9"}',
                    headers={"Content-Type": "application/json"})
    assert (r.status_code, r.json()) == (400, {"error": "bad_request", "detail": UNREADABLE_BODY})
