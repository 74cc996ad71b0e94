"""Prometheus metrics of one API process: requests, latency, plans by source, errors.

Each app gets its own registry (several apps in one test process must not share
counters); `GET /metrics` serves it in the Prometheus text format.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


@dataclass
class Metrics:
    registry: CollectorRegistry = field(default_factory=CollectorRegistry)

    def __post_init__(self) -> None:
        self.requests = Counter("appmem_requests_total", "HTTP requests", ("method", "route", "status"),
                                registry=self.registry)
        self.latency = Histogram("appmem_request_seconds", "HTTP request latency", ("route",),
                                 buckets=LATENCY_BUCKETS, registry=self.registry)
        self.plans = Counter("appmem_plans_total", "plans answered, by source and route", ("source", "route"),
                             registry=self.registry)
        self.errors = Counter("appmem_errors_total", "requests that failed, by kind", ("kind",),
                              registry=self.registry)
        self.contributions = Counter("appmem_contributions_total", "contributions accepted, by kind", ("kind",),
                                     registry=self.registry)

    def text(self) -> bytes:
        return generate_latest(self.registry)
