"""What answers an agent: the local `agent.service.Service` or `contract.client.ApiClient`, the same methods."""
from __future__ import annotations

from typing import Any, Protocol

from appmem.contract.hints import HintsAnswer
from appmem.contract.locate import LocateAnswer
from appmem.contract.plan import Plan


class MemoryBackend(Protocol):
    def plan(self, task: str, app: str | None = None, screen_id: str | None = None, screen_xml: str | None = None,
             screen_html: str | None = None, activity: str | None = None, k: int | None = None,
             came_from: dict[str, str] | None = None, avoid: list[dict[str, str]] | None = None,
             screenshot: str | None = None) -> Plan: ...

    def locate(self, app: str | None, screen_xml: str | None = None, screen_html: str | None = None,
               activity: str | None = None, screenshot: str | None = None) -> LocateAnswer: ...

    def hints(self, task: str, app: str | None, screen_xml: str | None = None, screen_html: str | None = None,
              activity: str | None = None, screenshot: str | None = None) -> HintsAnswer: ...

    def doc(self, app: str, budget: int | None = None) -> dict[str, Any]: ...

    def search(self, text: str, kind: str = "element", app: str | None = None, k: int = 5) -> list[dict[str, Any]]: ...

    def apps(self) -> list[dict[str, Any]]: ...

    def app_map(self, app: str) -> dict[str, Any]: ...

    def close(self) -> None: ...
