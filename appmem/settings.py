"""The one settings object, built from the environment at the entry point and passed down.

Every variable is documented in `.env.example`. When NEO4J_URI / REDIS_URL /
QDRANT_URL are set, those servers are used and the embedded stack starts none.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from appmem.errors import ConfigError
from appmem.planconfig import PlannerConfig


def _int(env: dict[str, str], name: str, default: int) -> int:
    raw = env.get(name)
    if raw in (None, ""):
        return default
    try:
        return int(raw)
    except ValueError:
        raise ConfigError(f"{name} must be an integer, got {raw!r}") from None


def _bounded(env: dict[str, str], name: str, default: int, low: int, high: int) -> int:
    value = _int(env, name, default)
    if not low <= value <= high:
        raise ConfigError(f"{name} must be between {low} and {high}, got {value}")
    return value


# A retry waits in the broker as an unacknowledged message: below its visibility timeout (workers/celery_app.py,
# one hour), or the broker would deliver it a second time while it waits.
MAX_RETRY_DELAY_S = 3000


@dataclass(frozen=True)
class Settings:
    home: Path
    neo4j_uri: str | None = None
    neo4j_user: str = "neo4j"
    neo4j_password: str | None = None
    neo4j_database: str = "neo4j"
    redis_url: str | None = None
    qdrant_url: str | None = None
    qdrant_api_key: str | None = None
    arcadedb_bolt_port: int = 7687
    arcadedb_http_port: int = 2480
    arcadedb_heap_mb: int = 1536
    redis_port: int = 6390
    llm_base_url: str | None = None
    llm_model: str | None = None
    llm_api_key: str | None = None
    llm_timeout_s: int = 60
    ingest_chunk_steps: int = 200
    summarize_processes: int = 1  # `appmem summarize` processes that summarise and embed apps (0: one per core)
    rate_limit: int = 50  # API requests per second per key, unless the key sets its own
    max_body_bytes: int = 2 * 1024 * 1024
    trust_quorum: int = 3  # distinct contributors before a contribution-only observation counts for plans
    tenant_quorum: int = 1  # distinct keys of a tenant before its own observations count for its keys' reads
    contrib_per_minute: int = 30  # contributions per key per minute
    contrib_per_day: int = 2000  # contributions per key per UTC day
    contrib_pending: int = 50  # contributions of one key waiting for a worker
    ingest_retry_max_age_s: int = 7 * 24 * 3600  # a contribution meeting a store outage is retried this long
    ingest_retry_max_delay_s: int = 600  # the longest wait between two of its retries (the delay doubles up to it)
    ingest_resend_s: int = 6 * 3600  # a pending contribution whose message no worker took this long is sent again
    purge_lease_s: int = 30  # a purge's lock on its key outlives a killed purge process this long
    purge_pause_after: str | None = None  # a purge step (ingest/purge.py STEPS) after which a purge waits
    purge_pause_s: int = 0  # how long it waits there
    plan_cache_mb: int = 64  # plans kept in Redis (shared) and in each server process, at most
    server: str | None = None  # an appmem API base URL: `appmem plan/locate/hints` ask it instead of the stores
    server_key: str | None = None  # the API key for `server`
    workers: int = 0  # `appmem serve` worker processes (0: one per core)
    model_threads: int = 0  # ONNX threads of each serve worker (0: one, api/app.py model_threads)
    blas_threads: int = 1  # BLAS threads of a process that answers plans (semantic/blas.py; 0: one per core)
    preload: bool = True  # `appmem serve` loads every app's graph and index before /healthz says ready
    device_timeout_s: int = 10  # `appmem run`: the longest one exchange with the adb server and device waits
    health_timeout_s: int = 3  # /healthz waits this long for the stores together before calling one failing
    tracing: str | None = None  # OpenTelemetry spans: None (off), "console" or "otlp"
    embed_model: str = "minilm"  # the sentence model (semantic/embedder.py MODELS): "minilm", "minilm-dq" or "mpnet"
    planner: PlannerConfig = field(default_factory=PlannerConfig)  # ranking and planning options (appmem/planconfig.py)
    risky_words: tuple[str, ...] = field(default=(
        "uninstall", "factory reset", "reset all", "delete account", "format sd", "format storage", "wipe",
        "erase all",
    ))

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> "Settings":
        env = dict(os.environ if env is None else env)
        home = Path(env.get("APPMEM_HOME") or ".appmem").expanduser().resolve()
        risky = env.get("APPMEM_RISKY_WORDS")
        return cls(
            home=home,
            neo4j_uri=env.get("NEO4J_URI") or None,
            neo4j_user=env.get("NEO4J_USER") or "neo4j",
            neo4j_password=env.get("NEO4J_PASSWORD") or None,
            neo4j_database=env.get("NEO4J_DATABASE") or "neo4j",
            redis_url=env.get("REDIS_URL") or None,
            qdrant_url=env.get("QDRANT_URL") or None,
            qdrant_api_key=env.get("QDRANT_API_KEY") or None,
            arcadedb_bolt_port=_int(env, "APPMEM_ARCADEDB_BOLT_PORT", 7687),
            arcadedb_http_port=_int(env, "APPMEM_ARCADEDB_HTTP_PORT", 2480),
            arcadedb_heap_mb=_int(env, "APPMEM_ARCADEDB_HEAP_MB", 1536),
            redis_port=_int(env, "APPMEM_REDIS_PORT", 6390),
            llm_base_url=env.get("APPMEM_LLM_BASE_URL") or None,
            llm_model=env.get("APPMEM_LLM_MODEL") or None,
            llm_api_key=env.get("APPMEM_LLM_API_KEY") or None,
            llm_timeout_s=_int(env, "APPMEM_LLM_TIMEOUT_S", 60),
            ingest_chunk_steps=_int(env, "APPMEM_INGEST_CHUNK_STEPS", 200),
            summarize_processes=max(0, _int(env, "APPMEM_SUMMARIZE_PROCESSES", 1)),
            rate_limit=_int(env, "APPMEM_RATE_LIMIT", 50),
            max_body_bytes=_int(env, "APPMEM_MAX_BODY_BYTES", 2 * 1024 * 1024),
            trust_quorum=max(1, _int(env, "APPMEM_TRUST_QUORUM", 3)),
            tenant_quorum=max(1, _int(env, "APPMEM_TENANT_QUORUM", 1)),
            contrib_per_minute=_int(env, "APPMEM_CONTRIB_PER_MINUTE", 30),
            contrib_per_day=_int(env, "APPMEM_CONTRIB_PER_DAY", 2000),
            contrib_pending=_int(env, "APPMEM_CONTRIB_PENDING", 50),
            ingest_retry_max_age_s=_bounded(env, "APPMEM_INGEST_RETRY_MAX_AGE_S", 7 * 24 * 3600, 1, 365 * 24 * 3600),
            ingest_retry_max_delay_s=_bounded(env, "APPMEM_INGEST_RETRY_MAX_DELAY_S", 600, 1, MAX_RETRY_DELAY_S),
            ingest_resend_s=_bounded(env, "APPMEM_INGEST_RESEND_S", 6 * 3600, 60, 30 * 24 * 3600),
            purge_lease_s=_bounded(env, "APPMEM_PURGE_LEASE_S", 30, 1, 3600),
            purge_pause_after=(env.get("APPMEM_PURGE_PAUSE_AFTER") or "").strip() or None,
            purge_pause_s=_bounded(env, "APPMEM_PURGE_PAUSE_S", 0, 0, 24 * 3600),
            plan_cache_mb=_bounded(env, "APPMEM_PLAN_CACHE_MB", 64, 0, 1 << 20),
            server=env.get("APPMEM_SERVER") or None,
            server_key=env.get("APPMEM_KEY") or env.get("APPMEM_API_KEY") or None,
            workers=_int(env, "APPMEM_WORKERS", 0),
            model_threads=_int(env, "APPMEM_MODEL_THREADS", 0),
            blas_threads=_bounded(env, "APPMEM_BLAS_THREADS", 1, 0, 1024),
            preload=_int(env, "APPMEM_PRELOAD", 1) != 0,
            device_timeout_s=_bounded(env, "APPMEM_DEVICE_TIMEOUT_S", 10, 1, 600),
            health_timeout_s=max(1, _int(env, "APPMEM_HEALTH_TIMEOUT_S", 3)),
            tracing=env.get("APPMEM_TRACING") or None,
            embed_model=(env.get("APPMEM_EMBED_MODEL") or "minilm").strip().lower(),
            risky_words=tuple(w.strip().lower() for w in risky.split(",") if w.strip()) if risky
            else cls.__dataclass_fields__["risky_words"].default,
        )

    @property
    def embedded_graph(self) -> bool:
        return self.neo4j_uri is None

    @property
    def embedded_redis(self) -> bool:
        return self.redis_url is None

    @property
    def qdrant_path(self) -> Path:
        return self.home / "qdrant"

    @property
    def snapshot_path(self) -> Path:
        """Per-app read-only vector snapshots (semantic/snapshots.py), read by every serving process."""
        return self.home / "vectors"

    @property
    def run_dir(self) -> Path:
        return self.home / "run"
