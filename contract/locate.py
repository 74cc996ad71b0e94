"""Which remembered screen the agent's screen is."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from appmem.contract.base import Strict


class Candidate(Strict):
    screen_id: str = Field(description="a remembered screen")
    score: float = Field(description="its similarity to the agent's screen")


class LocateAnswer(Strict):
    package: str = Field(description="the app the screen is in")
    screen_id: str | None = Field(description="the remembered screen (null when unknown)")
    match: Literal["exact", "similar", "unknown"] = Field(description="exact, similar or unknown")
    score: float = Field(description="the match's score")
    candidates: list[Candidate] = Field(description="the nearest screens, best first")
