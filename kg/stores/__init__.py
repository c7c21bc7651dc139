"""Opening the configured store: the one place that knows both backends."""

from __future__ import annotations

from kg.config import Settings
from kg.stores.protocol import ReadStore


def open_store(settings: Settings) -> ReadStore:
    """The store named by ``settings.backend``; Neo4j errors are :class:`StoreUnavailable`."""
    if settings.backend == "neo4j":
        from kg.stores.neo4j.store import open_neo4j_store  # the driver is only needed for Neo4j

        return open_neo4j_store(settings)
    from kg.stores.sqlite import SQLiteStore

    return SQLiteStore(settings.data_dir)
