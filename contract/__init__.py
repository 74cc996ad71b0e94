"""The typed contract between agents (and the device-side runtime) and the memory: pydantic models only.

Everything that crosses the API, the MCP server, the Python client or the CLI's
`--json` output is one of these models: a `Plan` of `PlanStep`s, a
`LocateAnswer`, `Hint`s, a `RunTrace` of `RunStep`s reported back, and a
`ContributionStatus`. This package imports nothing of appmem's but pydantic,
so every layer may use it. docs/contract.md lists these fields
(tests/contract/test_contract.py checks it).
"""
from appmem.contract.backend import MemoryBackend
from appmem.contract.contributions import Accepted, ContributionStatus
from appmem.contract.hints import Hint, HintsAnswer, HintTarget
from appmem.contract.locate import Candidate, LocateAnswer
from appmem.contract.plan import Alternative, AppChoice, Plan, PlanElement, PlanStart, PlanStep
from appmem.contract.requests import Avoid, CameFrom, CorrectionRequest, HintsRequest, LocateRequest, PlanRequest, ScreenInput
from appmem.contract.run import FORMAT, MAX_STEPS, RunElement, RunStep, RunTrace

__all__ = ["Accepted", "Alternative", "AppChoice", "Avoid", "CameFrom", "Candidate", "ContributionStatus", "CorrectionRequest", "FORMAT",
           "Hint", "HintTarget", "HintsAnswer", "HintsRequest", "LocateAnswer", "LocateRequest", "MAX_STEPS", "MemoryBackend", "Plan",
           "PlanElement", "PlanRequest", "PlanStart", "PlanStep", "RunElement", "RunStep", "RunTrace", "ScreenInput"]
