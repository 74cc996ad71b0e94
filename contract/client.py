"""A typed Python client of the appmem API (httpx), for agents, the runtime and the CLI.

    with ApiClient("http://127.0.0.1:8750", key) as api:
        plan = api.plan("create an event", app="calendar", screen_xml=dump)   # a contract.Plan

It has the methods of `agent.service.Service` (plan, locate, hints, doc,
search) and answers with the same `contract` models, so a caller takes either.

Errors come back as `ApiError` with the status and the server's message; 429
and 503 are retried a bounded number of times after their Retry-After.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx

from appmem.errors import AppmemError
from appmem.retry_after import retry_after_s
from appmem.contract.contributions import Accepted, ContributionStatus
from appmem.contract.hints import HintsAnswer
from appmem.contract.locate import LocateAnswer
from appmem.contract.plan import Plan

RETRIES = 3


class ApiError(AppmemError):
    """The API's refusal or failure (`status` its HTTP status), or 0: no answer came (`url` unreachable, or
    the request was refused before sending); the runtime reads a status outside 4xx as "the memory is gone"."""

    def __init__(self, status: int, detail: Any, url: str | None = None):
        if status:
            message = f"API answered {status}: {detail}"
        else:  # "answered 0" read as if the server had said something
            message = f"API unreachable at {url}: {detail}" if url else str(detail)
        super().__init__(message)
        self.status = status
        self.detail = detail


class ApiClient:
    def __init__(self, base_url: str, key: str, timeout_s: float = 30.0, transport: httpx.BaseTransport | None = None):
        self.http = httpx.Client(base_url=base_url.rstrip("/"), timeout=timeout_s, transport=transport,
                                 headers={"Authorization": f"Bearer {key}"})

    def __enter__(self) -> "ApiClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.http.close()

    def _call(self, method: str, path: str, **kw: Any) -> Any:
        for attempt in range(RETRIES + 1):
            try:
                response = self.http.request(method, path, **kw)
            except httpx.HTTPError as exc:
                raise ApiError(0, f"{type(exc).__name__}: {exc}", str(self.http.base_url).rstrip("/")) from exc
            if response.status_code in (429, 503) and attempt < RETRIES:
                time.sleep(retry_after_s(response.headers.get("Retry-After"), cap=5.0, default=1.0))
                continue
            if response.status_code >= 400:
                try:
                    detail = response.json().get("detail")
                except ValueError:
                    detail = response.text[:200]
                raise ApiError(response.status_code, detail)
            return response.json()
        raise AssertionError("unreachable")

    @staticmethod
    def _body(**fields: Any) -> dict[str, Any]:
        return {k: v for k, v in fields.items() if v is not None}

    def plan(self, task: str, app: str | None = None, screen_id: str | None = None, screen_xml: str | None = None,
             screen_html: str | None = None, activity: str | None = None, k: int | None = None,
             came_from: dict[str, str] | None = None, avoid: list[dict[str, str]] | None = None,
             screenshot: str | None = None) -> Plan:
        if k is not None:
            raise ApiError(0, "a server plans with its own k: leave --k out, or plan without APPMEM_SERVER")
        return Plan.model_validate(self._call("POST", "/v1/plan", json=self._body(
            task=task, app=app, screen_id=screen_id, screen_xml=screen_xml, screen_html=screen_html,
            activity=activity, came_from=came_from, avoid=avoid or None, screenshot=screenshot)))

    def locate(self, app: str | None, screen_xml: str | None = None, screen_html: str | None = None,
               activity: str | None = None, screenshot: str | None = None) -> LocateAnswer:
        return LocateAnswer.model_validate(self._call("POST", "/v1/locate", json=self._body(
            app=app, screen_xml=screen_xml, screen_html=screen_html, activity=activity, screenshot=screenshot)))

    def hints(self, task: str, app: str | None, screen_xml: str | None = None, screen_html: str | None = None,
              activity: str | None = None, screenshot: str | None = None) -> HintsAnswer:
        return HintsAnswer.model_validate(self._call("POST", "/v1/hints", json=self._body(
            task=task, app=app, screen_xml=screen_xml, screen_html=screen_html, activity=activity,
            screenshot=screenshot)))

    def doc(self, app: str, budget: int | None = None) -> dict[str, Any]:
        return self._call("GET", f"/v1/apps/{app}/doc", params=self._body(budget=budget))

    def search(self, text: str, kind: str = "element", app: str | None = None, k: int = 5) -> list[dict[str, Any]]:
        return self._call("GET", "/v1/search", params=self._body(text=text, kind=kind, app=app, k=k))["hits"]

    def apps(self) -> list[dict[str, Any]]:
        return self._call("GET", "/v1/apps")["apps"]

    def app_map(self, app: str) -> dict[str, Any]:
        return self._call("GET", f"/apps/{app}/map.json")

    def screen(self, package: str, screen_id: str) -> dict[str, Any]:
        return self._call("GET", f"/v1/apps/{package}/screens/{screen_id}")

    def contribute(self, run: dict[str, Any]) -> Accepted:
        return Accepted.model_validate(self._call("POST", "/v1/traces", json=run))

    def contribute_droidbot(self, tarball: Path) -> Accepted:
        return Accepted.model_validate(self._call("POST", "/v1/traces", content=tarball.read_bytes(),
                                                  headers={"Content-Type": "application/gzip"}))

    def correct(self, correction: dict[str, Any]) -> Accepted:
        return Accepted.model_validate(self._call("POST", "/v1/corrections", json=correction))

    def trace(self, trace_id: str) -> ContributionStatus:
        return ContributionStatus.model_validate(self._call("GET", f"/v1/traces/{trace_id}"))

    def wait_trace(self, trace_id: str, timeout_s: float = 60.0) -> ContributionStatus:
        deadline = time.monotonic() + timeout_s
        while True:
            status = self.trace(trace_id)
            if status.status != "pending" or time.monotonic() > deadline:
                return status
            time.sleep(0.2)

