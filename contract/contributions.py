"""What a contribution (a run trace, a DroidBot tarball, a correction) gets back: its id, then its status."""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class Accepted(BaseModel):
    trace_id: str = Field(description="the contribution's id")
    status_url: str = Field(description="where to poll its status")


class ContributionStatus(BaseModel):
    trace_id: str = Field(description="the contribution's id")
    status: Literal["pending", "done", "failed"] = Field(description="pending, done, or failed with a reason")
    kind: str = Field(description="run, droidbot or correction")
    reason: str = Field("", description="why it failed")
    report: dict[str, Any] | None = Field(None, description="what the ingest stored")
