"""The twin replay modes' names, apart from their code (twins/replay.py): the CLI offers them as
choices at start, and importing the replay itself would cost every `appmem` command its imports."""
from __future__ import annotations

EXACT, SIMILAR = "exact", "similar"
MODES = (EXACT, SIMILAR)
