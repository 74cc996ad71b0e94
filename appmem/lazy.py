"""A module imported on its first use, for heavy libraries that a short-lived process may never need.

`models = LazyModule("qdrant_client.models")` binds a name at import time whose
attributes (`models.Filter`) import the real module when first read. The
one-shot CLI reads vectors from snapshots and never talks to Qdrant: it must
not pay for importing the client (tests/test_lazy_imports.py holds that).
"""
from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class LazyModule:
    def __init__(self, name: str):
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attribute: str) -> Any:
        if self._module is None:
            self._module = importlib.import_module(self._name)
        return getattr(self._module, attribute)

    def __repr__(self) -> str:
        return f"<lazy module {self._name}{'' if self._module is None else ' (loaded)'}>"
