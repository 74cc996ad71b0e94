"""The device's screen as the runtime just observed it, located in memory (graph.model.Screen is the stored one)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class LiveScreen:
    package: str
    activity: str
    xml: str
    located: dict[str, Any] = field(default_factory=dict)
    drawn: str = ""  # the package of the window the dump shows on top (its nodes'), "" when they name none

    @property
    def screen_id(self) -> str | None:
        return self.located.get("screen_id")

    def overlaid(self, package: str) -> bool:
        """The app is focused but another package's window is drawn over it (the shade, a system dialog)."""
        return self.package == package and bool(self.drawn) and self.drawn != package
