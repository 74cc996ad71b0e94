"""Where a run's screenshots were taken, for runs that come back from agents that see only pixels: each
screenshot is read (formats/screenshot.py) and located among the app's remembered screens (agent/pixels.py),
the same way a pixel agent's `locate` is answered. `PixelFinder` is ingest/run.py's `ScreenFinder`: the
ingest worker passes one per contribution, so it locates against memory as it is then (its trusted view:
a screen only contributions reported is not one a screenshot can be placed on)."""
from __future__ import annotations

from appmem.agent.appgraph import AppGraph
from appmem.agent.pixels import PixelMatch, app_texts, locate_pixels, scale
from appmem.formats.screenshot import ReaderOptions, ScreenReader, screen_reader
from appmem.graph.model import Screen
from appmem.graph.store import GraphStore
from appmem.ingest.run import Sighting


class PixelFinder:
    """Locates screenshots of one contribution; the app's graph is loaded once, on its first screenshot."""

    def __init__(self, store: GraphStore, reader: ScreenReader | None = None, weights: PixelMatch = PixelMatch()):
        self.store, self.weights, self._reader = store, weights, reader
        self.graphs: dict[str, AppGraph] = {}

    @property
    def reader(self) -> ScreenReader:
        """The given reader, else the process's (its models load on the first screenshot, once)."""
        return self._reader or screen_reader(ReaderOptions())

    def graph(self, package: str) -> AppGraph:
        if package not in self.graphs:
            self.graphs[package] = AppGraph.load(self.store, [package])
        return self.graphs[package]

    def __call__(self, package: str, data: bytes, where: str) -> Sighting | None:
        """The remembered screen the screenshot shows (None: no screen of the app is `similar` to it)."""
        graph = self.graph(package)
        reading = self.reader.read(data, package, "", where)
        found = locate_pixels(self.store, graph, package, reading, self.weights)
        sid = found["screen_id"]
        if sid is None:
            return None
        row = graph.screens[sid]
        screen = Screen(id=sid, package=row["package"], app_version="", activity=row["activity"],
                        signature=row["signature"], title=row.get("title") or "")
        return Sighting(screen, graph.screen_elements(sid), scale(reading, app_texts(self.store, graph, package)))
