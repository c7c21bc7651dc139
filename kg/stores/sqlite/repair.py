"""``kg check --repair``: rebuild a damaged store from every row that can still be read.

Why rows, not pages: SQLite's own ``VACUUM INTO`` stops at the first unreadable page, and the
shell's ``.recover`` is not part of the Python library. Here, with public means only:

1. the damaged file is opened read-only (``immutable``: nothing is written into it); when its
   header is what is damaged (a flipped magic byte, page size, version or encoding byte), a
   copy with a header put right is opened instead, trying the page sizes SQLite allows;
2. a fresh store is created beside it by :class:`kg.stores.sqlite.SQLiteStore` itself (its
   schema, indexes, counts triggers and ``meta`` rows, so nothing is hand-made here);
3. the graph's own tables are copied: nodes (one read of the table; where a page cannot be read,
   by ranges of row ids, halved down to single rows, so a bad page costs only its rows),
   relationships (whole table; where that fails, one seek per saved node), keyphrases and
   stored analytics. Every property map is parsed; a row that does not parse is skipped. The
   derived columns, name keys, text index, paper counts and tie weights are computed again from
   the saved rows (the damaged file's copies of them are not trusted), and relationships whose
   ends were lost are dropped;
4. the new file must pass the full check (:func:`kg.stores.sqlite.check.problems`) before it is
   offered; the damaged file is then kept beside it as ``graph.sqlite.damaged-<time>``.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from extractors.embedding import DIMENSIONS, MODEL_ID
from kg.core.models import Properties
from kg.stores.sqlite import check, schema, vectors

DB_FILE = "graph.sqlite"
RANGE = 1000  # node row ids read per query where the whole table cannot be read at once
EMPTY_RANGES_TO_STOP = 5  # without a readable max(rowid): ranges with nothing before giving up
PAGE_SIZES = (4096, 1024, 2048, 8192, 16384, 32768, 65536, 512)


class NothingToSave(Exception):
    """No node of the damaged store could be read: there is nothing to rebuild from."""


@dataclass
class Salvage:
    """What a rebuild saved and lost (printed by ``kg check --repair``)."""

    nodes: int = 0
    rels: int = 0
    keyphrases: int = 0
    unreadable: int = 0  # row ids (or seeks) SQLite could not read: rows lost, or ids past a lost end
    bad_json: int = 0  # rows read whose property maps did not parse
    dangling: int = 0  # relationships and keyphrases whose node was lost
    notes: list[str] = field(default_factory=list)

    @property
    def lost_any(self) -> bool:
        return bool(self.unreadable or self.bad_json or self.dangling or self.notes)

    def summary(self) -> str:
        lost = [
            f"{n} {what}"
            for n, what in (
                (self.unreadable, "row id(s) SQLite could not read"),
                (self.bad_json, "row(s) with bad property JSON"),
                (self.dangling, "link(s) to lost nodes"),
            )
            if n
        ]
        return (
            f"saved {self.nodes:,} node(s), {self.rels:,} relationship(s), {self.keyphrases:,} keyphrase(s)"
            + (f"; left out {', '.join(lost)}" if lost else "" if self.notes else "; nothing left out")
            + "".join(f"; {note}" for note in self.notes)
        )


def rebuild(damaged: Path, work_dir: Path) -> tuple[Path, Salvage]:
    """Rebuild ``damaged`` into ``work_dir / graph.sqlite`` (``work_dir`` is created, empty).

    Raises:
        NothingToSave: not one node could be read.
        check.StoreDamaged: the rebuilt file does not pass the full check (not expected; it is
            removed and the damaged one left as it was).
    """
    from kg.stores.sqlite import SQLiteStore

    salvage = Salvage()
    work_dir.mkdir(parents=True)
    with _readable(damaged, work_dir) as source:
        if source is None:
            raise NothingToSave("SQLite cannot read its schema, even with the header put right")
        SQLiteStore(work_dir).close()  # the fresh store: schema, indexes, triggers, meta rows
        target_path = work_dir / DB_FILE
        target = sqlite3.connect(target_path, isolation_level=None)
        try:
            target.execute("BEGIN IMMEDIATE")
            _copy(source, target, salvage)
            target.execute("COMMIT")
            target.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            target.close()
    found = check.problems(target_path, full=True, budget_s=None)
    if found:
        raise check.StoreDamaged(f"the rebuilt store did not pass the check: {found[0]}")
    SQLiteStore(work_dir).close()  # it opens as a store (and its stamp says it was checked)
    return target_path, salvage


def replace(damaged: Path, rebuilt: Path) -> Path:
    """Move ``damaged`` (and its WAL files) aside as a backup and put ``rebuilt`` in its place.

    Returns:
        The backup's path.
    """
    backup = damaged.with_name(f"{damaged.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
    n = 1
    while backup.exists():
        n += 1
        backup = backup.with_name(f"{damaged.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}-{n}")
    os.replace(damaged, backup)
    for suffix in ("-wal", "-shm"):
        side = damaged.with_name(damaged.name + suffix)
        if side.exists():
            os.replace(side, backup.with_name(backup.name + suffix))
    stamp = damaged.with_name(damaged.name + check.STAMP_SUFFIX)
    stamp.unlink(missing_ok=True)
    os.replace(rebuilt, damaged)
    new_stamp = rebuilt.with_name(rebuilt.name + check.STAMP_SUFFIX)
    if new_stamp.exists():
        os.replace(new_stamp, stamp)
    return backup


def repair(data_dir: Path, confirm: Callable[[str], bool], out: Callable[[str], None]) -> int:
    """``kg check --repair`` on ``data_dir``: the exit code (0 repaired in full or nothing to
    repair, 1 repaired with rows left out, 2 nothing saved or not replaced).

    Args:
        data_dir: the store's folder.
        confirm: asked before the damaged file is replaced (``--yes``: always yes).
        out: prints one line.
    """
    path = data_dir / DB_FILE
    if not path.exists():
        out(f"{path}: no store yet (nothing to repair)")
        return 0
    found = check.problems(path, full=True, budget_s=None)
    if not found:
        out(f"{path}: ok, nothing to repair")
        return 0
    damage = found[0] + (f" (and {len(found) - 1} more problem(s))" if len(found) > 1 else "")
    work_dir = data_dir / f".repair-{os.getpid()}-{time.monotonic_ns()}"
    try:
        try:
            rebuilt, salvage = rebuild(path, work_dir)
        except NothingToSave as e:
            out(f"{path}: damaged ({damage}) and nothing can be saved: {e}; move it away and ingest again")
            return 2
        except check.StoreDamaged as e:
            out(f"{path}: damaged ({damage}) and cannot be repaired: {e}; move it away and ingest again")
            return 2
        except OSError as e:
            out(
                f"{path}: damaged ({damage}) and cannot be repaired here: {e.strerror or e} "
                f"({data_dir} must be writable)"
            )
            return 2
        out(f"{path}: damaged: {damage}")
        out(f"{path}: rebuilt: {salvage.summary()}; the rebuilt store passes every check")
        if not confirm(f"replace {path} with the rebuilt store (the damaged one is kept beside it)?"):
            out(f"{path}: not replaced (nothing changed)")
            return 2
        backup = replace(path, rebuilt)
        out(f"{path}: replaced; the damaged file is kept as {backup}")
        return 1 if salvage.lost_any else 0
    finally:
        shutil.rmtree(work_dir, ignore_errors=True)


# -- reading what can be read -----------------------------------------------------------------


class _Source:
    """A read-only connection to the damaged file (or its copy with the header put right)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def rows(self, sql: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]] | None:
        """All rows of ``sql``, or ``None`` when SQLite cannot read them."""
        try:
            return list(self.conn.execute(sql, params).fetchall())
        except sqlite3.DatabaseError:
            return None

    def tables(self) -> set[str]:
        rows = self.rows("SELECT name FROM sqlite_master WHERE type = 'table'") or []
        return {str(r[0]) for r in rows}

    def columns(self, table: str) -> set[str]:
        return {str(r[1]) for r in self.rows(f"PRAGMA table_info({table})") or []}


class _readable:  # noqa: N801 - used as a context manager, like open()
    """``with _readable(path, work_dir) as source``: the best readable view of the file, or
    ``None`` when not even its schema can be read. Removes its header-fixed copy afterwards."""

    def __init__(self, damaged: Path, work_dir: Path) -> None:
        self.damaged = damaged
        self.work_dir = work_dir
        self.conn: sqlite3.Connection | None = None

    def __enter__(self) -> _Source | None:
        copy = self.work_dir / "damaged-fixed-header.sqlite"
        self.conn = _open_if_readable(self.damaged) or _open_fixed_copy(self.damaged, copy)
        if self.conn is None:  # the schema may still be readable (a table gone): _copy says what
            self.conn = _open_if_readable(self.damaged, need_nodes=False)
        return None if self.conn is None else _Source(self.conn)

    def __exit__(self, *exc: object) -> None:
        if self.conn is not None:
            self.conn.close()
        (self.work_dir / "damaged-fixed-header.sqlite").unlink(missing_ok=True)


def _open_if_readable(path: Path, need_nodes: bool = True) -> sqlite3.Connection | None:
    """A read-only, immutable connection when SQLite can read the schema (and the nodes table)."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True, isolation_level=None)
    except sqlite3.Error:
        return None
    try:
        conn.execute("SELECT name FROM sqlite_master").fetchall()
        if need_nodes:
            conn.execute("SELECT 1 FROM nodes LIMIT 1").fetchall()
        return conn
    except sqlite3.DatabaseError:
        conn.close()
        return None


def _open_fixed_copy(damaged: Path, copy: Path) -> sqlite3.Connection | None:
    """A copy of ``damaged`` with the header's fixed fields put right, padded to whole pages and
    its page count set to what the file holds (a truncated copy), opened if readable."""
    try:
        original = damaged.read_bytes()
    except OSError:
        return None
    if len(original) < check.HEADER_BYTES * 2:
        return None
    data = bytearray(original)
    data[:16] = check.SQLITE_MAGIC
    data[18:20] = b"\x01\x01"  # rollback journal: the copy has no WAL beside it
    data[21:24] = b"\x40\x20\x20"
    if int.from_bytes(data[44:48], "big") not in (1, 2, 3, 4):
        data[44:48] = (4).to_bytes(4, "big")
    if int.from_bytes(data[56:60], "big") not in (1, 2, 3):
        data[56:60] = (1).to_bytes(4, "big")
    stated = int.from_bytes(data[16:18], "big")
    sizes = [stated, *PAGE_SIZES] if stated in PAGE_SIZES else list(PAGE_SIZES)
    for page_size in sizes:
        for reserved in dict.fromkeys((data[20], 0)):
            data[16:18] = (1 if page_size == 65536 else page_size).to_bytes(2, "big")
            data[20] = reserved
            pages = -(-len(original) // page_size)
            data[28:32] = pages.to_bytes(4, "big")
            data[92:96] = data[24:28]  # the page count above is valid for this change counter
            padding = bytes(pages * page_size - len(original))
            try:
                copy.write_bytes(bytes(data) + padding)
            except OSError:
                return None
            conn = _open_if_readable(copy)
            if conn is not None:
                return conn
    return None


# -- copying ----------------------------------------------------------------------------------


def _props(blob: object) -> Properties | None:
    """A parsed property map, or ``None`` when it is not one."""
    try:
        value = json.loads(bytes(blob) if isinstance(blob, bytes | memoryview) else str(blob))
    except (ValueError, TypeError):
        return None
    return cast(Properties, value) if isinstance(value, dict) else None


def _node_rows(source: _Source, salvage: Salvage) -> Iterator[tuple[object, ...]]:
    """``(id, label, props)`` of every node that can be read."""
    query = "SELECT id, label, props FROM nodes"
    everything = source.rows(query)
    if everything is not None:
        yield from everything
        return
    upper = None
    # The largest row id from the table, else from any of its indexes (they hold row ids too).
    for via in ("", " INDEXED BY nodes_by_name", " INDEXED BY nodes_by_order", " INDEXED BY nodes_by_count"):
        top = source.rows(f"SELECT max(rowid) FROM nodes{via}")
        if top and isinstance(top[0][0], int):
            upper = int(top[0][0])
            break
    low, empty, before_empty = 1, 0, salvage.unreadable
    while (upper is not None and low <= upper) or (upper is None and empty < EMPTY_RANGES_TO_STOP):
        if not empty:
            before_empty = salvage.unreadable
        got = list(_range(source, f"{query} WHERE rowid BETWEEN ? AND ?", low, low + RANGE - 1, salvage))
        empty = 0 if got else empty + 1
        yield from got
        low += RANGE
    if upper is None:  # the empty ranges at the end were past the last row, not lost rows
        salvage.unreadable = before_empty


def _range(source: _Source, sql: str, low: int, high: int, salvage: Salvage) -> Iterator[tuple[object, ...]]:
    """Rows with row ids in ``[low, high]``; an unreadable range is halved down to single rows."""
    rows = source.rows(sql, (low, high))
    if rows is not None:
        yield from rows
        return
    if low == high:
        salvage.unreadable += 1
        return
    mid = (low + high) // 2
    yield from _range(source, sql, low, mid, salvage)
    yield from _range(source, sql, mid + 1, high, salvage)


def _rel_rows(source: _Source, node_ids: list[str], salvage: Salvage) -> Iterator[tuple[object, ...]]:
    query = 'SELECT start, type, "end", props, weight FROM rels'
    everything = source.rows(query)
    if everything is not None:
        yield from everything
        return
    for node_id in node_ids:  # one seek per node: a bad page costs only the links on it
        rows = source.rows(f"{query} WHERE start = ?", (node_id,))
        if rows is None:
            salvage.unreadable += 1
            continue
        yield from rows


def _copy(source: _Source, target: sqlite3.Connection, salvage: Salvage) -> None:
    tables = source.tables()
    if "nodes" not in tables:
        raise NothingToSave("its nodes table is gone")
    labels: dict[str, str] = {}
    node_rows = []
    text_rows = []
    key_rows: list[tuple[str, int, str]] = []
    for node_id, label, blob in _node_rows(source, salvage):
        props = _props(blob)
        if props is None or not isinstance(node_id, str) or not isinstance(label, str) or node_id in labels:
            salvage.bad_json += props is None
            continue
        labels[node_id] = label
        node_rows.append((node_id, label, schema.dumps(props), *schema.node_columns(node_id, label, props)))
        text_rows.append((node_id, schema.fts_row(label, props)))
        key_rows += schema.name_key_rows(node_id, label, props)
    if not node_rows:
        raise NothingToSave("not one node could be read")
    salvage.nodes = _insert(target, _INSERT_NODES, node_rows)
    target.executemany(
        "INSERT OR IGNORE INTO name_keys (key, rank, node_id) VALUES (?,?,?)", sorted(key_rows)
    )
    rowids = dict(target.execute("SELECT id, rowid FROM nodes").fetchall())
    target.executemany(
        "INSERT INTO fts (rowid, title, abstract, name, aliases) VALUES (?,?,?,?,?)",
        [(rowids[n], *row) for n, row in text_rows if row is not None],
    )
    if "rels" in tables:
        _copy_rels(source, target, sorted(labels), labels, salvage)
    else:
        salvage.notes.append("its relationships table is gone")
    if "keyphrases" in tables:
        _copy_keyphrases(source, target, labels, salvage)
    if "analysis" in tables:
        _copy_analysis(source, target, labels, salvage)
    if "embeddings" in tables:
        _copy_embeddings(source, target, labels, salvage)
    _recount(target)
    _copy_meta(source, target, tables)


# The rows a rebuild writes, with every derived column (see the store's schema).
_INSERT_NODES = (
    "INSERT INTO nodes (id, label, props, name, sort_key, year, kind, source, search_text) "
    "VALUES (?,?,?,?,?,?,?,?,?)"
)
_INSERT_RELS = (
    'INSERT INTO rels (start, type, "end", props, weight, about, position, rank) VALUES (?,?,?,?,?,?,?,?)'
)
_INSERT_KEYPHRASES = (
    "INSERT OR IGNORE INTO keyphrases (concept_id, paper_id, node, rel, key, about) VALUES (?,?,?,?,?,?)"
)


def _insert(target: sqlite3.Connection, sql: str, rows: Sequence[tuple[object, ...]]) -> int:
    """Writes the salvaged ``rows`` of one table and returns how many there were, the count the
    repair reports for that table."""
    target.executemany(sql, rows)
    return len(rows)


def _copy_rels(
    source: _Source, target: sqlite3.Connection, node_ids: list[str], labels: dict[str, str], salvage: Salvage
) -> None:
    rows: list[tuple[object, ...]] = []
    seen: set[tuple[object, object, object]] = set()
    for start, rel_type, end, blob, weight in _rel_rows(source, node_ids, salvage):
        if start not in labels or end not in labels or not isinstance(rel_type, str):
            salvage.dangling += 1
            continue
        if (start, rel_type, end) in seen:
            continue
        if rel_type in schema.PAIR_TYPES:
            if not isinstance(weight, int) or weight <= 0:
                salvage.bad_json += 1
                continue
            rows.append((start, rel_type, end, None, weight, None, None, None))
        else:
            props = _props(blob) if blob is not None else {}
            if props is None:
                salvage.bad_json += 1
                continue
            stored = None if blob is None else schema.dumps(props)
            rows.append((start, rel_type, end, stored, None, *schema.rel_columns(rel_type, props)))
        seen.add((start, rel_type, end))
    salvage.rels = _insert(target, _INSERT_RELS, rows)


def _copy_keyphrases(
    source: _Source, target: sqlite3.Connection, labels: dict[str, str], salvage: Salvage
) -> None:
    rows = source.rows("SELECT concept_id, paper_id, node, rel FROM keyphrases")
    if rows is None:
        salvage.notes.append("its keyphrase table could not be read (ingest the papers again to restore it)")
        return
    kept = []
    for concept_id, paper_id, node_blob, rel_blob in rows:
        node, rel = _props(node_blob), _props(rel_blob)
        if node is None or rel is None:
            salvage.bad_json += 1
            continue
        if paper_id not in labels:
            salvage.dangling += 1
            continue
        key, about = schema.keyphrase_columns(node, rel)
        kept.append((concept_id, paper_id, schema.dumps(node), schema.dumps(rel), key, about))
    salvage.keyphrases = _insert(target, _INSERT_KEYPHRASES, kept)


def _copy_analysis(
    source: _Source, target: sqlite3.Connection, labels: dict[str, str], salvage: Salvage
) -> None:
    """Stored analytics (``kg analyze``): copied where readable, else left for ``kg analyze``."""
    columns = ["pair", "node_id", "degree", "betweenness", "pagerank", "community"]
    rows = source.rows(f"SELECT {', '.join(columns)} FROM analysis")
    if rows is None or not source.columns("analysis") >= set(columns):
        salvage.notes.append("its stored analytics could not be read (run kg analyze)")
        return
    from kg.stores.sqlite.store import ANALYSIS_DDL

    target.execute(ANALYSIS_DDL)
    target.executemany(
        f"INSERT OR IGNORE INTO analysis ({', '.join(columns)}) VALUES (?,?,?,?,?,?)",
        [r for r in rows if r[1] in labels],
    )


def _copy_embeddings(
    source: _Source, target: sqlite3.Connection, labels: dict[str, str], salvage: Salvage
) -> None:
    """Paper vectors (``similar``, ``like``, search's semantic part): copied where readable and
    whole, else left for ``kg embed``, which fills in every paper without one."""
    if "model" in source.columns("embeddings"):
        rows = source.rows("SELECT paper_id, vector, model FROM embeddings")
    else:  # from before vectors named their model: today's, as the store's upgrade tags them
        rows = source.rows("SELECT paper_id, vector, ? FROM embeddings", (MODEL_ID,))
    if rows is None:
        salvage.notes.append("its paper embeddings could not be read (run kg embed)")
        return
    target.execute(vectors.DDL)
    target.executemany(
        "INSERT OR IGNORE INTO embeddings (paper_id, vector, model) VALUES (?,?,?)",
        [
            (pid, blob, model)
            for pid, blob, model in rows
            if isinstance(pid, str)
            and labels.get(pid) == "Paper"
            and isinstance(blob, bytes)
            and len(blob) == DIMENSIONS
            and isinstance(model, str)
        ],
    )


def _recount(target: sqlite3.Connection) -> None:
    """``paper_count`` and ``ties`` from the saved relationships (see the store's writes)."""
    parts = []
    for rel_type, side in schema.PAPER_DEGREE.items():
        column = "start" if side == "start" else '"end"'
        # a concept: papers about it (``about`` 1 or 2, see schema.rel_columns)
        counted = "SUM(about >= 1)" if rel_type == "MENTIONS" else "COUNT(*)"
        parts.append(
            f"coalesce((SELECT {counted} FROM rels r "
            f"WHERE r.{column} = nodes.id AND r.type = '{rel_type}'), 0)"
        )
    types = ", ".join(f"'{t}'" for t in schema.PAIR_TYPES)
    ties = [
        f"coalesce((SELECT SUM(weight) FROM rels r WHERE r.{column} = nodes.id AND r.type IN ({types})), 0)"
        for column in ("start", '"end"')
    ]
    target.execute(f"UPDATE nodes SET paper_count = {' + '.join(parts)}, ties = {' + '.join(ties)}")


def _copy_meta(source: _Source, target: sqlite3.Connection, tables: set[str]) -> None:
    """Other ``meta`` rows as they were; ``version`` past the old one (caches keyed by it drop)."""
    rows = (source.rows("SELECT key, value FROM meta") or []) if "meta" in tables else []
    old: dict[object, object] = {row[0]: row[1] for row in rows if len(row) == 2}
    version = old.get("version")
    start = version if isinstance(version, int) and not isinstance(version, bool) and version >= 0 else 0
    for key, value in old.items():
        if key not in ("format", "version") and isinstance(key, str) and isinstance(value, int):
            target.execute("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)", (key, value))
    target.execute("UPDATE meta SET value = ? WHERE key = 'version'", (start + 1,))
