"""CLI for analysts: `appmem export` (GraphML, neo4j-admin CSV, Cypher scripts)."""
from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    pass
