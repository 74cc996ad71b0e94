"""What a run reports: its trace (`contract.RunTrace`, the model the API validates: ingest/run.py), the
result `appmem run` prints, and that result in words."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from appmem.contract.run import VERSION_PATTERN, RunElement, RunStep, RunTrace
from appmem.formats.ui import Bounds
from appmem.graph.rows import now_iso
from appmem.runtime.grounding import node_at
from appmem.runtime.screen import LiveScreen

PACKAGE = re.compile(r"[A-Za-z0-9_.]+")
VERSION = re.compile(VERSION_PATTERN)


@dataclass
class RunState:
    """Where a run got to: its app and version, the device's last screen, its re-plans and relaunches, and the
    stored task its first recalled plan replayed."""
    package: str = ""
    version: str = "unknown"
    here: LiveScreen | None = None
    replans: int = 0
    relaunches: int = 0
    recalled: str | None = None


def run_trace(steps: list[dict[str, Any]], task: str, package: str, version: str, device: str, started: str,
              status: str, recalled: str | None) -> RunTrace:
    """The run trace, clipped to the model's bounds; `recalled`: the stored task the run's first recalled plan
    replayed (its outcome counts for it)."""
    run_steps = [RunStep(index=s["index"], action=s["action"], element=_run_element(s["element"]),
                         input=s["input"][:5000], before_xml=s["before_xml"], after_xml=s["after_xml"],
                         before_activity=s["before_activity"][:500], after_activity=s["after_activity"][:500],
                         expected_screen=s["expected_screen"], reached_screen=s["reached_screen"],
                         outcome=s["outcome"]) for s in steps]
    package = package if PACKAGE.fullmatch(package or "") else "unknown"
    version = version[:200] if VERSION.fullmatch((version or "")[:200]) else "unknown"  # a device may report anything
    return RunTrace(task=task[:2000] or "(no task)", package=package[:300], app_version=version,
                    device=(device or "device")[:200], started=started, ended=now_iso(),
                    status=status, steps=run_steps, recalled_task=recalled)


def result(status: str, reason: str, where: RunState, steps: list[dict[str, Any]],
           llm_failures: list[dict[str, Any]], run: RunTrace) -> dict[str, Any]:
    """The run's result: status and reason, re-plans, each step (the LLM's invalid replies among them),
    where it ended, and its trace."""
    here = where.here
    shown = [{"index": s["index"], "action": s["action"], "label": (s["element"] or {}).get("text")
              or (s["element"] or {}).get("content_desc") or s["input"], "outcome": s["outcome"],
              "expected_screen": s["expected_screen"], "reached_screen": s["reached_screen"],
              **({"why": s["why"]} if s["why"] else {})} for s in steps]
    return {"status": status, "reason": reason, "replans": where.replans, "relaunches": where.relaunches,
            "package": where.package,
            "steps": sorted(shown + llm_failures, key=lambda s: (s["index"], s["action"] != "llm")),
            "ended": {"package": here.package, "activity": here.activity, "screen_id": here.screen_id}
            if here else None,
            "run": run.model_dump(mode="json")}


def trace_element(element: dict[str, Any] | None, bounds: Bounds | None, xml: str) -> dict[str, Any] | None:
    """The element as the trace records it: the dumped view acted on, else what the plan remembered."""
    if element is None:
        return None
    if bounds is not None and (seen := node_at(xml, bounds)):
        return seen
    return {"text": element.get("text") or "", "content_desc": element.get("content_desc") or "",
            "resource_id": element.get("resource_id") or "", "class_name": element.get("class_name") or "",
            "bounds": (bounds.as_list() if bounds else element.get("bounds")) or [0, 0, 0, 0]}


def _run_element(element: dict[str, Any] | None) -> RunElement | None:
    if element is None:
        return None
    bounds = [int(b) for b in (element.get("bounds") or [0, 0, 0, 0])][:4]
    return RunElement(text=str(element.get("text") or "")[:5000], content_desc=str(element.get("content_desc") or "")[:5000],
                      resource_id=str(element.get("resource_id") or "")[:500],
                      class_name=str(element.get("class_name") or "")[:500],
                      bounds=bounds if len(bounds) == 4 else [0, 0, 0, 0])


def describe(result: dict[str, Any]) -> str:
    relaunched = f", the app restarted {result['relaunches']} time(s)" if result.get("relaunches") else ""
    lines = [f"{result['status']}: {len(result['steps'])} steps, {result['replans']} re-plans{relaunched}"
             + (f" ({result['reason']})" if result["reason"] else "")]
    lines += [f"  {s['index'] + 1}. {s['action']} {s['label'] or ''} → {s['outcome']}" for s in result["steps"]]
    if result.get("ended"):
        lines.append(f"ended on {result['ended']['screen_id'] or 'a screen memory does not know'} "
                     f"({result['ended']['package']})")
    if result.get("trace_id"):
        lines.append(f"trace: {result['trace_id']}")
    if result.get("contribution") and result["contribution"] != "sent":
        lines.append(f"contribution: {result['contribution']}")
    return "\n".join(lines)
