"""Bearer keys on every /v1 route: 401 without a live key, 429 over its rate, 403 without the scope.

The `admin` scope includes the others. The key itself is never logged; the
request's key record is kept on `request.state.key` for the routes (a
contribution is attributed to its key id).
"""
from __future__ import annotations

import math

from fastapi import Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from appmem.keys import ApiKey

bearer = HTTPBearer(auto_error=False, description="an appmem API key: `appmem keys create`")


def authenticate(request: Request, creds: HTTPAuthorizationCredentials | None) -> ApiKey:
    services = request.app.state.services
    if creds is None or creds.scheme.lower() != "bearer" or not creds.credentials:
        raise HTTPException(401, "missing API key: send Authorization: Bearer KEY",
                            headers={"WWW-Authenticate": "Bearer"})
    key, retry_after = services.keys.check(creds.credentials, services.settings.rate_limit)
    if key is None:
        raise HTTPException(401, "unknown or revoked API key", headers={"WWW-Authenticate": "Bearer"})
    if retry_after:
        raise HTTPException(429, f"rate limit of key {key.id} exceeded",
                            headers={"Retry-After": str(max(1, math.ceil(retry_after)))})
    request.state.key = key
    return key


def require(scope: str, *others: str):
    """A dependency that admits live keys holding `scope` (or one of `others`, or admin)."""
    scopes = (scope, *others, "admin")

    def check(request: Request, creds: HTTPAuthorizationCredentials | None = Depends(bearer)) -> ApiKey:
        key = authenticate(request, creds)
        if not any(s in key.scopes for s in scopes):
            raise HTTPException(403, f"this key lacks the {' or '.join(map(repr, scopes[:-1]))} scope")
        return key
    return check
