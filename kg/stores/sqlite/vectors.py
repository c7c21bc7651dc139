"""Paper embeddings in the embedded store: the ``embeddings`` table and the nearest-paper scan.

Why a table of its own (``paper_id``, ``vector`` BLOB of 384 int8, see
:mod:`extractors.embedding`) rather than a column of ``nodes``: node rows are rewritten with
``INSERT OR REPLACE`` by every merge, which would have to carry the vector along, and the scan
below reads only vectors, 384 bytes each, packed together. A store written before embeddings
gets the table when it is opened (:func:`ensure_embeddings`, like the other ``ensure_*``
migrations); ``kg embed`` then fills it in.

Why a numpy scan and no approximate index: at 100k papers one query is a matrix-vector product
over 100k x 384 floats (``bench/similar.py`` measures it); the matrix is read once per store
version and process (:class:`VectorCache`), so a query costs the product.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Sequence

import numpy as np

from extractors.embedding import DIMENSIONS
from kg.core.models import PaperRecord
from kg.stores.nearest import Matrix

DDL = "CREATE TABLE IF NOT EXISTS embeddings (paper_id TEXT PRIMARY KEY, vector BLOB NOT NULL)"


def ensure_embeddings(c: sqlite3.Connection) -> None:
    """Give a store written before embeddings its table (once)."""
    if c.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'embeddings'").fetchone():
        return
    c.execute("BEGIN IMMEDIATE")
    try:
        c.execute(DDL)
        c.execute("COMMIT")
    except BaseException:
        c.execute("ROLLBACK")
        raise


def _has_table(c: sqlite3.Connection) -> bool:
    """A read-only store from before embeddings has no table: it holds no vectors."""
    return bool(
        c.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'embeddings'").fetchone()
    )


def write(c: sqlite3.Connection, pairs: Sequence[tuple[str, bytes]]) -> int:
    """Store each ``(paper id, vector)`` that differs from the stored one; how many did.

    Only papers that are nodes get a vector (a record the batch skipped has none)."""
    given = dict(pairs)
    ids = list(given)
    todo: list[tuple[str, bytes]] = []
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        stored = dict(
            c.execute(f"SELECT paper_id, vector FROM embeddings WHERE paper_id IN ({marks})", chunk)  # noqa: S608
        )
        papers = {
            r[0]
            for r in c.execute(f"SELECT id FROM nodes WHERE label = 'Paper' AND id IN ({marks})", chunk)  # noqa: S608
        }
        todo += [(p, given[p]) for p in chunk if p in papers and stored.get(p) != given[p]]
    c.executemany(
        "INSERT INTO embeddings VALUES (?, ?) ON CONFLICT (paper_id) DO UPDATE SET vector = excluded.vector",
        todo,
    )
    return len(todo)


def record_pairs(records: Sequence[PaperRecord]) -> list[tuple[str, bytes]]:
    """``(paper id, vector)`` of the records that carry one."""
    return [(r.paper.id, r.embedding) for r in records if r.embedding is not None]


def vectors_of(c: sqlite3.Connection, ids: Sequence[str]) -> list[bytes | None]:
    """Each paper's stored vector, ``None`` when it has none."""
    if not ids or not _has_table(c):
        return [None] * len(ids)
    found: dict[str, bytes] = {}
    for start in range(0, len(ids), 500):
        chunk = list(ids[start : start + 500])
        marks = ",".join("?" * len(chunk))
        found.update(
            c.execute(f"SELECT paper_id, vector FROM embeddings WHERE paper_id IN ({marks})", chunk)  # noqa: S608
        )
    return [found.get(i) for i in ids]


def missing(c: sqlite3.Connection, limit: int) -> list[tuple[str, str, str]]:
    """Up to ``limit`` papers without a vector: ``(id, title, abstract)``, by id."""
    if not _has_table(c):
        return []
    rows = c.execute(
        "SELECT id, json_extract(props, '$.title'), json_extract(props, '$.abstract') FROM nodes "
        "WHERE label = 'Paper' AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.paper_id = nodes.id) "
        "ORDER BY id LIMIT ?",
        (limit,),
    ).fetchall()
    return [(str(i), str(t or ""), str(a or "")) for i, t, a in rows]


def read_matrix(c: sqlite3.Connection) -> Matrix:
    """Every stored vector, by paper id."""
    if not _has_table(c):
        return Matrix([], np.zeros((0, DIMENSIONS), dtype=np.int8))
    ids: list[str] = []
    blobs: list[bytes] = []
    for pid, blob in c.execute("SELECT paper_id, vector FROM embeddings ORDER BY paper_id"):
        if isinstance(blob, bytes) and len(blob) == DIMENSIONS:
            ids.append(str(pid))
            blobs.append(blob)
    return Matrix(ids, np.frombuffer(b"".join(blobs), dtype=np.int8).reshape(len(ids), DIMENSIONS))


class VectorCache:
    """The :class:`Matrix` of the store version last asked for (one per process; bounded: the
    matrix of one version, 1.5 KB per embedded paper)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: tuple[int, Matrix] | None = None

    def get(self, version: int, read: Callable[[], Matrix]) -> Matrix:
        with self._lock:
            if self._held is None or self._held[0] != version:
                self._held = (version, read())
            return self._held[1]
