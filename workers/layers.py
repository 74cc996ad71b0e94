"""The ingest worker's half of a tenant's layer: its new points embedded when its contribution is stored.

A tenant's view reads the public's points of an app and adds its own (semantic/layers.py), whose
texts' vectors it finds in the embedder's cache under the tenant's namespace. After each contribution
of a tenant's key, the worker runs `Service.embed_layer` for the contribution's app, in one pass over
the layer (only texts the cache lacks go through the model), so that the tenant's first plan of the app
reads vectors and embeds none; the points it computed are kept too (semantic/layercache.py), so that
the first plan summarises nothing either. The model and the vectors open at the first tenant
contribution a worker process ingests, once. The caches are `<APPMEM_HOME>/embeddings.sqlite` and
`layers.sqlite`: the worker and the API share them when they share APPMEM_HOME (one host, or one
volume). docker/docker-compose.yml gives each container a home of its own: there the API's first plan
computes its points and embeds what its cache lacks.
"""
from __future__ import annotations

import logging
import threading

from appmem.agent.service import Service, reader_vectors
from appmem.errors import ConfigError, TransientError
from appmem.graph.store import GraphStore
from appmem.semantic.layercache import LayerCache
from appmem.settings import Settings

log = logging.getLogger(__name__)


class LayerEmbedder:
    """`prepare(tenant, package)` for ingest/contributions.py `ingest_contribution`."""

    def __init__(self, store: GraphStore, settings: Settings):
        self.store, self.settings = store, settings
        self._memory: Service | None = None
        self._lock = threading.Lock()

    def __call__(self, tenant: str, package: str) -> None:
        """Embed `tenant`'s layer of `package`. A store that does not answer leaves it to the tenant's first
        plan, which embeds what the cache lacks: the contribution is stored either way. So does a worker
        configured with another embedding model than the memory's (semantic/modelrecord.py): it says so."""
        try:
            computed = self._open().embed_layer(tenant, [package])
        except (TransientError, OSError) as exc:
            log.warning("tenant %s: its layer of %s is left to its first plan: %s", tenant, package, exc)
            return
        except ConfigError as exc:
            log.error("tenant %s: its layer of %s is not embedded: %s", tenant, package, exc)
            return
        log.info("tenant %s: %d new texts of its layer of %s embedded", tenant, computed, package)

    def _open(self) -> Service:
        with self._lock:
            if self._memory is None:
                from appmem.semantic.embedder import Embedder

                embedder = Embedder(self.settings.home, model=self.settings.embed_model)
                self._memory = Service(self.store, reader_vectors(self.settings, embedder.dim), embedder, self.settings,
                                       layers=LayerCache.at(self.settings.home))
            return self._memory

    def close(self) -> None:
        if self._memory is not None and self._memory.vectors is not None:
            self._memory.vectors.close()
        if self._memory is not None and self._memory.layers is not None:
            self._memory.layers.close()
