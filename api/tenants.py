"""Admin routes over tenants (scope `admin`): list them, show one (its keys, shares and layer), share its
observations of public apps with the crowd, purge it. The same as `appmem tenants` (ingest/tenants.py)."""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, HTTPException, Path, Query, Request

from appmem.api.auth import require
from appmem.api.contrib import forget_tenant_cached, writable_vectors
from appmem.contract.requests import APP_MAX
from appmem.ingest import tenants
from appmem.ingest.purge import PurgeOptions
from appmem.keys import TENANT_RE

router = APIRouter(prefix="/v1/tenants", tags=["tenants"])
TENANT = Path(min_length=1, max_length=40, pattern=TENANT_RE.pattern, description="the tenant's name")


def _known(request: Request, tenant: str):
    services = request.app.state.services
    if not services.keys.of_tenant(tenant):
        raise HTTPException(404, f"no tenant {tenant!r}")
    return services


@router.get("", summary="tenants, with how many keys each has and what it shared")
def list_tenants(request: Request, _=Depends(require("admin"))) -> dict[str, Any]:
    return {"tenants": tenants.listing(request.app.state.services.keys)}


@router.get("/{tenant}", summary="one tenant: its keys, what it shared, its layer counted")
def show_tenant(request: Request, tenant: str = TENANT, _=Depends(require("admin"))) -> dict[str, Any]:
    services = _known(request, tenant)
    return tenants.describe(services.service.store, services.keys, tenant)


@router.post("/{tenant}/share", summary="offer the tenant's observations of public apps to the crowd, as one "
                                        "contributor under the public quorum")
def share_tenant(request: Request, tenant: str = TENANT,
                 app: str | None = Query(None, min_length=1, max_length=APP_MAX, pattern=r"^[A-Za-z0-9_.]+$"),
                 _=Depends(require("admin"))) -> dict[str, Any]:
    services = _known(request, tenant)
    return tenants.share(services.service.store, services.redis, tenant, app, services.settings.trust_quorum)


@router.delete("/{tenant}", summary="remove everything of the tenant: its layer, vectors, parked bodies, keys "
                                    "and what it shared")
def purge_tenant(request: Request, tenant: str = TENANT, _=Depends(require("admin"))) -> dict[str, Any]:
    services = _known(request, tenant)
    with writable_vectors(services.settings, services.service.vectors) as vectors:
        report = tenants.purge(services.service.store, services.redis, tenant, services.settings.trust_quorum, vectors,
                               PurgeOptions.of(services.settings))
    services.service.drop_view(tenant)  # what this process loaded of its layer
    return {**report, **forget_tenant_cached(services.settings, tenant)}
