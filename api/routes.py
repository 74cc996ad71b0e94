"""Read routes over the memory: plan, locate, hints, doc, search, apps and screens (scope `plan`).

Transport only: each route hands its request to `agent.service.Service` and
answers with a `contract` model (so OpenAPI shows the answer's schema); /v1/plan answers its model's own JSON.
"""
from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Path, Query, Request, Response

from appmem.api.auth import require
from appmem.contract import HintsAnswer, HintsRequest, LocateAnswer, LocateRequest, Plan, PlanRequest
from appmem.contract.requests import APP_MAX, DOC_BUDGET, SEARCH_K, TASK_MAX

router = APIRouter(prefix="/v1", tags=["memory"])
PACKAGE_PATTERN = r"^[A-Za-z0-9_.]+$"


def service(request: Request):
    """The service as the request's key reads the memory: its tenant's view, or the public's (agent/service.py)."""
    return request.app.state.services.service.viewing(request.state.key.tenant)


@router.post("/plan", response_model=Plan, summary="a shortcut plan for a task (docs/contract.md)")
def plan(body: PlanRequest, request: Request, _=Depends(require("plan"))) -> Response:
    out = service(request).plan(body.task, body.app, body.screen_id, body.screen_xml, body.screen_html, body.activity,
                                came_from=body.came_from.model_dump() if body.came_from else None,
                                avoid=[a.model_dump() for a in body.avoid], screenshot=body.screenshot)
    request.app.state.services.metrics.plans.labels(out.source, out.route).inc()
    # the Plan's own JSON (pydantic's: the bytes FastAPI's encoding of it gave); FastAPI would first validate the
    # answer of a sync route again on a hop to its thread pool and back: ≈ 0.5 ms of CPU a request (5 KB plans of
    # the heaviest apps), where the encoding itself takes 0.015 ms
    return Response(out.model_dump_json(), media_type="application/json")


@router.post("/locate", response_model=LocateAnswer, summary="which remembered screen a dump or screenshot shows")
def locate(body: LocateRequest, request: Request, _=Depends(require("plan"))) -> LocateAnswer:
    return service(request).locate(body.app, body.screen_xml, body.screen_html, body.activity, body.screenshot)


@router.post("/hints", response_model=HintsAnswer, summary="hints for a step-wise agent on its current screen")
def hints(body: HintsRequest, request: Request, _=Depends(require("plan"))) -> HintsAnswer:
    return service(request).hints(body.task, body.app, body.screen_xml, body.screen_html, body.activity,
                                  body.screenshot)


@router.get("/apps/{app}/doc", summary="the app document: screens, elements, effects, locators, ways in")
def doc(request: Request, app: str = Path(min_length=1, max_length=APP_MAX, pattern=PACKAGE_PATTERN, description="package or short name"),
        budget: int | None = Query(None, ge=DOC_BUDGET[0], le=DOC_BUDGET[1]),
        _=Depends(require("plan"))) -> dict[str, Any]:
    return service(request).doc(app, budget)


@router.get("/search", summary="semantic search over element, screen or task memory")
def search(request: Request, text: str = Query(min_length=1, max_length=TASK_MAX),
           kind: Literal["element", "screen", "task"] = "element",
           app: str | None = Query(None, min_length=1, max_length=APP_MAX), k: int = Query(5, ge=SEARCH_K[0], le=SEARCH_K[1]),
           _=Depends(require("plan"))) -> dict[str, Any]:
    return {"hits": service(request).search(text, kind, app, k)}


@router.get("/apps", summary="the apps in memory with their counts")
def apps(request: Request, _=Depends(require("plan"))) -> dict[str, Any]:
    return {"apps": service(request).apps()}


@router.get("/apps/{package}/screens/{screen_id}", summary="one screen: elements, locators, exits")
def screen(request: Request, package: str = Path(min_length=1, max_length=APP_MAX, pattern=PACKAGE_PATTERN),
           screen_id: str = Path(min_length=1, max_length=200),
           _=Depends(require("plan"))) -> dict[str, Any]:
    found = service(request).screen(package, screen_id)
    if found is None:
        raise HTTPException(404, f"no screen {screen_id!r} of {package!r} in memory")
    return found
