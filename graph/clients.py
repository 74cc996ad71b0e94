"""Clients of the stack's services, created once at an entry point and injected downwards."""
from __future__ import annotations

import neo4j

from appmem.settings import Settings
from appmem.stack import Stack
from appmem.graph.store import GraphStore


def open_graph(settings: Settings) -> GraphStore:
    """A GraphStore over a new driver for the configured (or embedded) graph server.
    The caller owns it: close with `store.driver.close()`."""
    uri, auth, database = Stack(settings).graph_target()
    driver = neo4j.GraphDatabase.driver(uri, auth=auth, max_connection_lifetime=3600)
    return GraphStore(driver, database)
