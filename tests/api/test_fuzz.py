"""Fuzzing the API's OpenAPI schema (schemathesis over the real app, graph, Redis and vectors):
whatever a client sends, valid or not, the answer is never a server error."""
from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings as hsettings

from appmem.api.app import create_app
from appmem.keys import KeyStore
from appmem.stack import Stack
from appmem.workers.devices import open_redis


@schemathesis.serializer("application/gzip")
def gzip_body(ctx, value) -> dict:
    """Generated tarball bodies are arbitrary bytes (the API must refuse them cleanly)."""
    return {"data": value if isinstance(value, bytes) else str(value).encode()}


@pytest.fixture(scope="module")
def app(memory, settings):
    app = create_app(settings, memory)
    _, key = KeyStore(open_redis(Stack(settings).redis_url())).create("fuzz", "admin", rate_limit=100_000)
    app.state.fuzz_key = key
    return app


def test_no_input_gets_a_server_error(app):
    """Every operation of the OpenAPI document, with generated bodies, paths and headers, with and
    without a key: 25 examples each (hypothesis, through schemathesis' strategies)."""
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 9
    statuses: list[int] = []
    for operation in operations:
        @given(case=operation.as_strategy())
        @hsettings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        def check(case):
            for headers in ({"Authorization": f"Bearer {app.state.fuzz_key}"}, {}):
                response = case.call(headers=headers)
                statuses.append(response.status_code)
                assert response.status_code < 500, (case.method, case.path, response.status_code,
                                                     response.text[:300])
                assert "Traceback" not in response.text
        check()
    assert len(statuses) > 200 and {200, 401, 422} <= set(statuses)
