"""What the vector store holds: a point (`VectorPoint`: an element, screen or task's vector and
payload), its id (a UUID derived from the object id, so upserting the same thing again replaces
it), a package's name as a collection or file name, a search hit and the order hits are cut in.
Shared by the store (semantic/vectors.py) and the read-only snapshots (semantic/snapshots.py)."""
from __future__ import annotations

import hashlib
import re
import uuid
from dataclasses import dataclass, field
from typing import Any

from appmem.semantic.appfolders import SEP  # local mode's collection `elements__com.example.app`

COLLECTIONS = ("elements", "screens", "tasks")
SAFE_PACKAGE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.]{0,150}")
TIE_MARGIN = 8
# Fixed namespace: point ids must be the same in every process and release.
_NAMESPACE = uuid.UUID("6f1c1e36-5f0e-4d8a-9a55-0c2b1f6a7e10")


def point_id(kind: str, object_id: str) -> str:
    return str(uuid.uuid5(_NAMESPACE, f"{kind}:{object_id}"))


def package_key(package: str) -> str:
    """A package as a collection or file name: itself when it is a plain Android package name,
    else a hash (package names come from contributors' traces: never a path)."""
    if SAFE_PACKAGE.fullmatch(package) and SEP not in package:
        return package
    return "h-" + hashlib.sha256(package.encode()).hexdigest()[:32]


@dataclass
class VectorPoint:
    """One vector to store: `object_id` is the element, screen or task id."""

    object_id: str
    vector: list[float]
    package: str
    app_version: str = ""
    screen_id: str = ""
    element_id: str = ""
    risky: bool = False
    text: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def payload(self) -> dict[str, Any]:
        return {"package": self.package, "app_version": self.app_version, "screen_id": self.screen_id,
                "element_id": self.element_id, "risky": self.risky, "text": self.text,
                "object_id": self.object_id, **self.extra}


@dataclass
class Hit:
    kind: str
    score: float
    payload: dict[str, Any]


def best(hits: list[Hit], k: int) -> list[Hit]:
    """The k best hits, exact ties (to float noise) in a fixed order: the same in every store and process."""
    return sorted(hits, key=lambda h: (-round(h.score, 6), str(h.payload.get("package")),
                                       str(h.payload.get("object_id"))))[:k]


def check_kind(kind: str) -> None:
    if kind not in COLLECTIONS:
        raise ValueError(f"unknown collection {kind!r}; one of {COLLECTIONS}")
