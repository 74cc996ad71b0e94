"""Read routes over the memory: plan, locate, hints, apps and screens (scope `plan`)."""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, HTTPException, Path, Request

from api.auth import require
from contract import HintsRequest, LocateRequest, PlanRequest

router = APIRouter(prefix="/v1", tags=["memory"])
PACKAGE = Path(min_length=1, max_length=300, pattern=r"^[A-Za-z0-9_.]+$")
SCREEN = Path(min_length=1, max_length=200)


def memory(request: Request):
    return request.app.state.services.memory


@router.post("/plan", summary="a shortcut plan for a task (CONTRACTS.md §4)")
def plan(body: PlanRequest, request: Request, _=Depends(require("plan"))) -> dict[str, Any]:
    out = memory(request).plan(body.task, body.app, body.screen_id, body.screen_xml, body.screen_html, body.activity)
    request.app.state.services.metrics.plans.labels(out.get("source", "memory"), out.get("route", "found")).inc()
    return out


@router.post("/locate", summary="which remembered screen a dump shows")
def locate(body: LocateRequest, request: Request, _=Depends(require("plan"))) -> dict[str, Any]:
    return memory(request).locate(body.app, body.screen_xml, body.screen_html, body.activity)


@router.post("/hints", summary="hints for a step-wise agent on its current screen")
def hints(body: HintsRequest, request: Request, _=Depends(require("plan"))) -> dict[str, Any]:
    return {"hints": memory(request).hints(body.task, body.app, body.screen_xml, body.screen_html, body.activity)}


@router.get("/apps", summary="the apps in memory with their counts")
def apps(request: Request, _=Depends(require("plan"))) -> dict[str, Any]:
    return {"apps": memory(request).apps()}


@router.get("/apps/{package}/screens/{screen_id}", summary="one screen: elements, locators, exits")
def screen(request: Request, package: str = PACKAGE, screen_id: str = SCREEN,
           _=Depends(require("plan"))) -> dict[str, Any]:
    found = memory(request).screen(package, screen_id)
    if found is None:
        raise HTTPException(404, f"no screen {screen_id!r} of {package!r} in memory")
    return found
