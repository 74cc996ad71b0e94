"""OpenTelemetry spans around plan, locate, ingest and summarize: off unless APPMEM_TRACING is set.

`span(name, **attributes)` is a no-op context manager while tracing is off, so
the hot paths pay nothing. `configure(settings)` at an entry point turns it on:
`APPMEM_TRACING=console` prints each span (the SDK's console exporter), `otlp`
sends them to an OTLP/HTTP collector (OTEL_EXPORTER_OTLP_ENDPOINT) when the
exporter package is installed.
"""
from __future__ import annotations

import functools
import sys
from contextlib import contextmanager, nullcontext
from typing import Any, Iterator

_tracer: Any = None


def configure(mode: str | None, exporter: Any = None) -> None:
    """Turn tracing on (`console`, `otlp`, or any SpanExporter passed in) or off (None / "")."""
    global _tracer
    if not mode and exporter is None:
        _tracer = None
        return
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor

    if exporter is None:
        if mode == "console":
            exporter = ConsoleSpanExporter(out=sys.stdout)  # the stdout of now, not of import time
        elif mode == "otlp":
            from appmem.errors import ConfigError

            try:
                from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
            except ImportError:
                raise ConfigError("APPMEM_TRACING=otlp needs opentelemetry-exporter-otlp-proto-http") from None
            exporter = OTLPSpanExporter()
        else:
            from appmem.errors import ConfigError

            raise ConfigError(f"APPMEM_TRACING must be console or otlp, got {mode!r}")
    provider = TracerProvider(resource=Resource.create({"service.name": "appmem"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    _tracer = provider.get_tracer("appmem")


def span(name: str, **attributes: Any):
    if _tracer is None:
        return nullcontext()
    return _started(name, attributes)


@contextmanager
def _started(name: str, attributes: dict[str, Any]) -> Iterator[Any]:
    with _tracer.start_as_current_span(name, attributes={k: v for k, v in attributes.items() if v is not None}) as s:
        yield s


def traced(name: str):
    """A decorator: the function's calls as spans named `name` (nothing while tracing is off)."""
    def wrap(fn):
        @functools.wraps(fn)
        def call(*args: Any, **kw: Any) -> Any:
            with span(name):
                return fn(*args, **kw)
        return call
    return wrap
