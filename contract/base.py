"""The base of every contract model: unknown fields are refused, so a drift between producer and contract fails loudly."""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")
