"""The frontier's knowledge of the fleet (`FleetKnowledge`).

What it knows: the TRANSITION edges out
of a screen that the shared graph held before the run started (actions the
memory already has go last), and a Redis set per (run, state) in which
concurrent workers claim an action before taking it (actions another worker
took go last; a worker repeats them only when the run took everything it can reach).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import redis

from appmem.graph.store import GraphStore
from appmem.workers.devices import key

CLAIMS_TTL_S = 24 * 3600


@dataclass
class FleetKnowledge:
    """The frontier's knowledge: the shared graph plus the run's claim sets in Redis."""

    store: GraphStore
    r: redis.Redis
    run_id: str
    run_started: str  # ISO time: the graph's knowledge from before the run
    _graph: dict[str, dict[str, int]] = field(default_factory=dict)

    _moves: dict[str, dict[str, tuple[int, str]]] = field(default_factory=dict)

    def acted(self, screen_id: str) -> dict[str, int]:
        if screen_id not in self._graph:
            out: dict[str, int] = {}
            moves: dict[str, tuple[int, str]] = {}
            for row in self.store.read("explore_acted", screen_id=screen_id, before=self.run_started):
                signature = f"{row['action']}|{row['element_key'] or ''}|{row['detail'] or ''}"
                out[signature] = out.get(signature, 0) + int(row["observations"] or 0)
                if row["target"] != screen_id and (row["successes"] or 0) > moves.get(signature, (0, ""))[0]:
                    moves[signature] = (row["successes"], row["target"])
            self._graph[screen_id] = out
            self._moves[screen_id] = moves
        return self._graph[screen_id]

    def expected(self, screen_id: str, signature: str) -> str | None:
        """The screen the memory says this action leads to (its most successful move elsewhere)."""
        self.acted(screen_id)
        move = self._moves[screen_id].get(signature)
        return move[1] if move else None

    def _claims_key(self, state_id: str) -> str:
        return key("run", self.run_id, "claimed", state_id)

    def claimed(self, state_id: str) -> set[str]:
        return set(self.r.smembers(self._claims_key(state_id)))

    def claim(self, state_id: str, signature: str) -> bool:
        name = self._claims_key(state_id)
        pipe = self.r.pipeline()
        pipe.sadd(name, signature)
        pipe.expire(name, CLAIMS_TTL_S)
        added, _ = pipe.execute()
        return bool(added)
