"""Paper embeddings in the embedded store: the ``embeddings`` table and the nearest-paper scan.

Why a table of its own (``paper_id``, ``vector`` BLOB of 384 int8, see
:mod:`extractors.embedding`) rather than a column of ``nodes``: node rows are rewritten with
``INSERT OR REPLACE`` by every merge, which would have to carry the vector along, and the scan
below reads only vectors, 384 bytes each, packed together. A store written before embeddings
gets the table when it is opened (:func:`ensure_embeddings`, like the other ``ensure_*``
migrations); ``kg embed`` then fills it in.

Why each row names its model (``model``, :data:`extractors.embedding.MODEL_ID`): vectors of two
models do not compare, and a store outlives a model. A vector of another model counts as
missing (``kg embed`` replaces it) and is never read or compared. Rows from before the column
are tagged with the model of the first version that opens them writable, the one that made them
unless the model changed in between.

Why a numpy scan and no approximate index: at 100k papers one query is a matrix-vector product
over 100k x 384 floats (``bench/similar.py`` measures it); the matrix is read once per store
version and process (:class:`VectorCache`), so a query costs the product. A search, which asks
for a few papers and may miss one, scans a projection of the matrix first
(:class:`kg.stores.nearest.FirstPass`, held by the matrix): 2-4x less CPU at 100k.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Sequence

import numpy as np

from extractors.embedding import DIMENSIONS, MODEL_ID
from kg.core.models import PaperRecord
from kg.stores.nearest import Matrix
from kg.stores.sqlite.schema import columns, immediate

DDL = (
    "CREATE TABLE IF NOT EXISTS embeddings "
    "(paper_id TEXT PRIMARY KEY, vector BLOB NOT NULL, model TEXT NOT NULL)"
)


def ensure_embeddings(c: sqlite3.Connection) -> None:
    """Give a store written before embeddings its table, and one written before vectors named
    their model its ``model`` column (once each)."""
    if "model" in columns(c, "embeddings"):
        return
    with immediate(c):
        have = columns(c, "embeddings")  # again, under the write lock: another process may have
        if not have:
            c.execute(DDL)
        elif "model" not in have:
            assert "'" not in MODEL_ID  # a constant, spliced into the DDL
            c.execute(f"ALTER TABLE embeddings ADD COLUMN model TEXT NOT NULL DEFAULT '{MODEL_ID}'")


def _current(c: sqlite3.Connection) -> str:
    """The condition on ``embeddings`` rows (alias ``e``) that keeps today's model's vectors.
    A read-only store from before the column cannot be tagged: its vectors count as today's."""
    return "e.model = ?" if "model" in columns(c, "embeddings") else "? IS NOT NULL"


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
    todo: list[tuple[str, bytes, str]] = []
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        stored = {
            pid: (vector, model)
            for pid, vector, model in c.execute(
                f"SELECT paper_id, vector, model FROM embeddings WHERE paper_id IN ({marks})",  # noqa: S608
                chunk,
            )
        }
        papers = {
            r[0]
            for r in c.execute(f"SELECT id FROM nodes WHERE label = 'Paper' AND id IN ({marks})", chunk)  # noqa: S608
        }
        todo += [
            (p, given[p], MODEL_ID) for p in chunk if p in papers and stored.get(p) != (given[p], MODEL_ID)
        ]
    c.executemany(
        "INSERT INTO embeddings (paper_id, vector, model) VALUES (?, ?, ?) ON CONFLICT (paper_id) "
        "DO UPDATE SET vector = excluded.vector, model = excluded.model",
        todo,
    )
    return len(todo)


def record_pairs(records: Sequence[PaperRecord]) -> list[tuple[str, bytes]]:
    """``(paper id, vector)`` of the records that carry one."""
    return [(r.paper.id, r.embedding) for r in records if r.embedding is not None]


def vectors_of(c: sqlite3.Connection, ids: Sequence[str]) -> list[bytes | None]:
    """Each paper's stored vector, ``None`` when it has none of today's model."""
    if not ids or not _has_table(c):
        return [None] * len(ids)
    current = _current(c)
    found: dict[str, bytes] = {}
    for start in range(0, len(ids), 500):
        chunk = list(ids[start : start + 500])
        marks = ",".join("?" * len(chunk))
        found.update(
            c.execute(
                f"SELECT paper_id, vector FROM embeddings e WHERE paper_id IN ({marks}) AND {current}",  # noqa: S608
                [*chunk, MODEL_ID],
            )
        )
    return [found.get(i) for i in ids]


def missing(c: sqlite3.Connection, limit: int, after: str = "") -> list[tuple[str, str, str]]:
    """Up to ``limit`` papers after ``after`` without a vector of today's model:
    ``(id, title, abstract)``, by id."""
    if not _has_table(c):
        return []
    rows = c.execute(
        "SELECT id, json_extract(props, '$.title'), json_extract(props, '$.abstract') FROM nodes "
        "WHERE label = 'Paper' AND id > ? AND NOT EXISTS "
        f"(SELECT 1 FROM embeddings e WHERE e.paper_id = nodes.id AND {_current(c)}) "  # noqa: S608
        "ORDER BY id LIMIT ?",
        (after, MODEL_ID, limit),
    ).fetchall()
    return [(str(i), str(t or ""), str(a or "")) for i, t, a in rows]


def read_matrix(c: sqlite3.Connection, background: bool = False) -> Matrix:
    """Every stored vector of today's model, by paper id (``background``: the matrix's first
    pass is built on a thread of its own, :class:`kg.stores.nearest.Matrix`)."""
    if not _has_table(c):
        return Matrix([], np.zeros((0, DIMENSIONS), dtype=np.int8))
    ids: list[str] = []
    blobs: list[bytes] = []
    sql = f"SELECT paper_id, vector FROM embeddings e WHERE {_current(c)} ORDER BY paper_id"  # noqa: S608
    for pid, blob in c.execute(sql, (MODEL_ID,)):
        if isinstance(blob, bytes) and len(blob) == DIMENSIONS:
            ids.append(str(pid))
            blobs.append(blob)
    matrix = np.frombuffer(b"".join(blobs), dtype=np.int8).reshape(len(ids), DIMENSIONS)
    return Matrix(ids, matrix, background=background)


class VectorCache:
    """The :class:`Matrix` of the store version last asked for (one per process; bounded: the
    matrix of one version, 1.5 KB per embedded paper)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: tuple[tuple[int, str], Matrix] | None = None

    def get(self, version: int, read: Callable[[], Matrix]) -> Matrix:
        """The matrix of ``version`` and today's model (the model is part of the key: the
        matrix holds only its vectors)."""
        key = (version, MODEL_ID)
        with self._lock:
            if self._held is None or self._held[0] != key:
                self._held = (key, read())
            return self._held[1]

    @property
    def held(self) -> Matrix | None:
        """The matrix held, if any (asks nothing)."""
        with self._lock:
            return None if self._held is None else self._held[1]
