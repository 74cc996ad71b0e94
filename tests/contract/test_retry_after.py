"""Retry-After as servers and proxies send it: delta-seconds or an HTTP date, honoured by the API client
(against a real HTTP server) and clamped; nonsense never raises."""
from __future__ import annotations

import json
import time
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler

from appmem.retry_after import retry_after_s
from appmem.contract.client import ApiClient
from tests.llm_server import serve


def test_delta_seconds_and_http_dates_are_read_and_clamped():
    assert retry_after_s("2", cap=5) == 2.0
    assert retry_after_s("86400", cap=5) == 5.0
    assert retry_after_s("-3", cap=5) == 0.0
    assert 2.0 <= retry_after_s(formatdate(time.time() + 3, usegmt=True), cap=10) <= 3.0
    assert retry_after_s(formatdate(time.time() - 60, usegmt=True), cap=10) == 0.0  # a date already past
    for nonsense in ("soon", "nan", "Mon, 99 Foo 20x", "\x00", ""):
        assert retry_after_s(nonsense, cap=5, default=1.0) == 1.0
    assert retry_after_s(None, cap=5) == 0.0


def test_the_api_client_waits_a_retry_after_given_as_an_http_date():
    """A 503 whose Retry-After is a date 2 s ahead (a proxy's way): the client waits for it, then takes the
    answer; it once raised ValueError on float("Tue, ...")."""
    times: list[float] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            times.append(time.monotonic())
            if len(times) == 1:
                self.send_response(503)
                self.send_header("Retry-After", formatdate(time.time() + 2, usegmt=True))
                self.end_headers()
                return
            body = json.dumps({"apps": [{"package": "a.b"}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    httpd, url = serve(Handler)
    try:
        with ApiClient(url.removesuffix("/v1"), "key") as api:
            assert api.apps() == [{"package": "a.b"}]
    finally:
        httpd.shutdown()
    assert len(times) == 2 and times[1] - times[0] >= 0.95  # the date is to the second: at least 1 s ahead
