"""API keys and per-key rate limits, kept in Redis so that every API replica (and the ingest worker) sees the same ones.

A key belongs to at most one tenant (`tenant`, appmem/tenants.py); a key without
one is the public crowd. What a key contributes is recorded in the graph under
its `contributor` id: the key id, or `TENANT/key id` for a tenant's key (the
slash is how every quorum tells a tenant's private voice from a public one).

A key is `am_<id>_<secret>`; only its sha256 is stored (keys are 32 random
bytes, so a fast hash is enough: there is nothing to brute-force). Each request
reads the key's record from Redis, so a revoked key fails at once on every
replica. Rate limits are a fixed one-second window per key (INCR + EXPIRE in
one round trip); the default limit is `APPMEM_RATE_LIMIT` requests per second.
"""
from __future__ import annotations

import hashlib
import json
import re
import secrets
import time
from dataclasses import dataclass, replace

import redis

from appmem.errors import AppmemError

# correct: a person's fixes, which weigh more; metrics: reading /metrics (a Prometheus scraper's key)
SCOPES = ("plan", "contribute", "correct", "admin", "metrics")
PREFIX = "appmem:apikey:"
VOICE = "tenant:"  # + a tenant's name: the one public contributor its shared observations count as
TENANT_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")


class KeyRequestError(AppmemError):
    """An unknown key id or a bad key request (scopes, name, rate)."""


@dataclass(frozen=True)
class ApiKey:
    id: str
    name: str
    scopes: tuple[str, ...]
    rate_limit: int  # requests per second; 0: the server's default
    created: str
    revoked: bool = False
    tenant: str = ""  # "": the public crowd

    @property
    def contributor(self) -> str:
        """Who its contributions are in the graph: the key id, or TENANT/id for a tenant's key."""
        return f"{self.tenant}/{self.id}" if self.tenant else self.id

    def as_dict(self) -> dict:
        return {"id": self.id, "name": self.name, "scopes": list(self.scopes), "rate_limit": self.rate_limit,
                "created": self.created, "revoked": self.revoked, "tenant": self.tenant or None}


def tenant_name(raw: str) -> str:
    """A tenant's name as stored: lower-case letters, digits, '-' and '_', at most 40, starting with a letter or
    digit (it prefixes its keys' contributor ids in the graph)."""
    if not TENANT_RE.match(raw or ""):
        raise KeyRequestError(f"a tenant name is 1-40 of a-z, 0-9, '-', '_' (starting with a letter or digit); "
                              f"got {raw!r}")
    return raw


def digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def parse_scopes(raw: str | list[str]) -> tuple[str, ...]:
    scopes = [s.strip() for s in (raw.split(",") if isinstance(raw, str) else raw) if s.strip()]
    unknown = sorted(set(scopes) - set(SCOPES))
    if unknown or not scopes:
        raise KeyRequestError(f"scopes must be a non-empty subset of {', '.join(SCOPES)}; got {', '.join(unknown) or 'none'}")
    return tuple(s for s in SCOPES if s in scopes)


class KeyStore:
    """Keys by digest (what a request looks up) and by id (what an admin lists and revokes)."""

    def __init__(self, r: redis.Redis):
        self.r = r  # decode_responses=True (workers.devices.open_redis)

    def create(self, name: str, scopes: str | list[str], rate_limit: int = 0,
               tenant: str = "") -> tuple[ApiKey, str]:
        """A new key (of `tenant`, "" for none); the secret is returned only here."""
        if not name.strip():
            raise KeyRequestError("a key needs a name")
        if rate_limit < 0:
            raise KeyRequestError("--rate-limit must be 0 (server default) or positive")
        if tenant and "admin" in parse_scopes(scopes):
            raise KeyRequestError("a tenant's key cannot hold the admin scope: admin reads and purges every tenant "
                                  "(an operator's key, of no tenant)")
        key_id = secrets.token_hex(6)
        secret = f"am_{key_id}_{secrets.token_urlsafe(32)}"
        record = ApiKey(key_id, name.strip(), parse_scopes(scopes), rate_limit,
                        time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), tenant=tenant_name(tenant) if tenant else "")
        pipe = self.r.pipeline()
        pipe.set(PREFIX + "hash:" + digest(secret), json.dumps(record.as_dict()))
        pipe.hset(PREFIX + "ids", key_id, digest(secret))
        pipe.execute()
        return record, secret

    def list(self) -> list[ApiKey]:
        out = []
        for key_id, hashed in sorted(self.r.hgetall(PREFIX + "ids").items()):
            raw = self.r.get(PREFIX + "hash:" + hashed)
            if raw is not None:
                out.append(_record(raw))
        return out

    def revoke(self, key_id: str) -> ApiKey:
        hashed = self.r.hget(PREFIX + "ids", key_id)
        raw = self.r.get(PREFIX + "hash:" + hashed) if hashed else None
        if raw is None:
            raise KeyRequestError(f"no key with id {key_id!r}")
        record = _record(raw)
        revoked = replace(record, revoked=True)
        self.r.set(PREFIX + "hash:" + hashed, json.dumps(revoked.as_dict()))
        return revoked

    def delete(self, key_id: str) -> None:
        """Forget the key altogether (a tenant's purge: its keys go with it)."""
        hashed = self.r.hget(PREFIX + "ids", key_id)
        pipe = self.r.pipeline()
        if hashed:
            pipe.delete(PREFIX + "hash:" + hashed)
        pipe.hdel(PREFIX + "ids", key_id)
        pipe.execute()

    def of_tenant(self, tenant: str) -> list[ApiKey]:
        return [k for k in self.list() if k.tenant == tenant]

    # -- tenants: a tenant exists while it has keys; what it shared is recorded beside them ----------------
    def tenants(self) -> dict[str, list[ApiKey]]:
        out: dict[str, list[ApiKey]] = {}
        for key in self.list():
            if key.tenant:
                out.setdefault(key.tenant, []).append(key)
        return dict(sorted(out.items()))

    def tenant(self, name: str) -> list[ApiKey]:
        """The tenant's keys; KeyRequestError for a tenant with none."""
        keys = self.of_tenant(tenant_name(name))
        if not keys:
            raise KeyRequestError(f"no tenant {name!r} (a tenant exists while it has keys: "
                                  f"appmem keys create --tenant {name})")
        return keys

    def record_share(self, tenant: str, app: str, at: str) -> None:
        """Remember that `tenant` offered its observations of `app` ("*": every public app) to the crowd."""
        self.r.hset(PREFIX + "shares:" + tenant, app, at)

    def shares(self, tenant: str) -> dict[str, str]:
        return dict(sorted(self.r.hgetall(PREFIX + "shares:" + tenant).items()))

    def forget_shares(self, tenant: str) -> None:
        self.r.delete(PREFIX + "shares:" + tenant)

    def get(self, key_id: str) -> ApiKey | None:
        hashed = self.r.hget(PREFIX + "ids", key_id)
        raw = self.r.get(PREFIX + "hash:" + hashed) if hashed else None
        return _record(raw) if raw is not None else None

    def find(self, name_or_id: str) -> ApiKey:
        """The key with this id, else the one key with this name; KeyRequestError otherwise."""
        if (key := self.get(name_or_id)) is not None:
            return key
        named = [k for k in self.list() if k.name == name_or_id]
        if len(named) != 1:
            raise KeyRequestError(f"no key named {name_or_id!r}" if not named else
                                  f"{len(named)} keys are named {name_or_id!r}: give its id "
                                  f"({', '.join(k.id for k in named)})")
        return named[0]

    def live(self, key_id: str) -> bool:
        """Whether the key exists and is not revoked (the ingest worker drops a revoked key's queue)."""
        key = self.get(key_id)
        return key is not None and not key.revoked

    def check(self, secret: str, default_rate: int) -> tuple[ApiKey | None, float]:
        """(the live key or None, seconds until it may retry; 0 when within its rate) in one round trip."""
        window = int(time.time())
        hashed = digest(secret)
        counter = f"{PREFIX}rate:{hashed[:16]}:{window}"
        pipe = self.r.pipeline(transaction=False)
        pipe.get(PREFIX + "hash:" + hashed)
        pipe.incr(counter)
        pipe.expire(counter, 2)
        raw, count, _ = pipe.execute()
        if raw is None:
            return None, 0.0
        record = _record(raw)
        if record.revoked:
            return None, 0.0
        limit = record.rate_limit or default_rate
        if count > limit:
            return record, max(0.001, window + 1 - time.time())
        return record, 0.0


def _record(raw: str | bytes) -> ApiKey:
    data = json.loads(raw)
    return ApiKey(data["id"], data["name"], tuple(data["scopes"]), int(data["rate_limit"]), data["created"],
                  bool(data.get("revoked")), data.get("tenant") or "")
