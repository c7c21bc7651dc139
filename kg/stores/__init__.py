"""Opening the configured store: the one place that knows both backends."""

from __future__ import annotations

from kg.core.config import Settings
from kg.stores.protocol import ReadStore


def open_store(settings: Settings) -> ReadStore:
    """The store named by ``settings.backend``; Neo4j errors are :class:`StoreUnavailable`."""
    if settings.backend == "neo4j":
        from kg.stores.neo4j.store import open_neo4j_store  # the driver is only needed for Neo4j

        return open_neo4j_store(settings)
    from kg.stores.sqlite import SQLiteStore

    return SQLiteStore(settings.data_dir)


def write_size(settings: Settings) -> int | None:
    """Papers per store transaction in ``kg ingest``: ``KG_WRITE_BATCH_SIZE`` when set, else what
    suits the backend (SQLite: :data:`kg.stores.sqlite.store.WRITE_BATCH`; Neo4j: ``None``, each
    extraction batch alone as before, since a transaction's state lives in the server's heap)."""
    if settings.write_batch_size:
        return settings.write_batch_size
    if settings.backend == "neo4j":
        return None
    from kg.stores.sqlite.store import WRITE_BATCH

    return max(WRITE_BATCH, settings.batch_size)
