"""Is a ``graph.sqlite`` fit to be trusted? Checked read-only before the store opens it.

Why: SQLite opens almost any file, and a damaged one failed late and variously: 24 of 42
damaged stores (truncated, flipped header bytes, scribbled pages, bad ``meta`` rows, garbage
property JSON) opened without complaint and ``kg ingest`` wrote new papers into 16 of them,
10 gave tracebacks, and one flipped header byte kept ``kg ingest`` busy for over 90 s. Here,
through a read-only connection (nothing is written into a file found damaged), in order:

1. the file header: SQLite's magic string, a valid page size, a file no shorter than the page
   count the header records (a truncated copy) and a whole number of pages;
2. ``PRAGMA quick_check`` (``integrity_check`` for ``kg check``), stopped after a time budget
   so that opening a large healthy store stays fast (``kg check`` has no budget);
3. the ``meta`` rows: ``format`` this paperkg's, ``version`` a non-negative integer, and the
   tables the store needs;
4. property JSON: every node's and relationship's ``props`` is valid JSON (within the budget).

Steps 2 and 4 read the whole file, so they run only when the file changed since they last
passed (a stamp beside it, :data:`STAMP_SUFFIX`); steps 1 and 3 run on every open. A store
that paperkg opened verified (or created) is stamped again when it closes (:func:`vouch`), so
its own writes do not send the next open back to the whole-file read.

:func:`problems` lists what is wrong (empty when nothing is); :class:`StoreDamaged` is what the
store raises with the first of them, one line that ``kg`` prints with exit code 2.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

from kg.core.errors import GraphStoreError
from kg.stores.sqlite import schema

SQLITE_MAGIC = b"SQLite format 3\x00"
HEADER_BYTES = 100
OPEN_BUDGET_S = 3.0  # of checking on every open; `kg check` takes as long as it needs
REQUIRED_TABLES = ("meta", "nodes", "rels", "name_keys")
_PROGRESS_STEPS = 10_000
# The files whose bounded check ran out of budget with nothing found, in this process: their
# stamp then and the budget. A second check of the same unchanged file within no larger a budget
# would read the same pages again and learn nothing (`kg serve` checks before it starts, then its
# store checks on open: 3 s twice on an unstamped 100k store). Any write changes the stamp.
_CUT_SHORT: dict[Path, tuple[str, float]] = {}


class StoreDamaged(GraphStoreError):
    """The store file is damaged; it was not opened for writing."""


def header_problem(path: Path) -> str | None:
    """What is wrong with the file's 100-byte header (or its size against it), or ``None``.

    A file shorter than a header is damaged; an empty file is a store not set up yet (SQLite
    creates it empty, and a second process may look before the first has written).
    """
    try:
        size = path.stat().st_size
        with path.open("rb") as f:
            header = f.read(HEADER_BYTES)
    except OSError as e:
        return f"cannot read the file: {e.strerror or e}"
    if size == 0:
        return None
    if len(header) < HEADER_BYTES:
        return f"the file is {size} bytes, shorter than an SQLite header"
    if not header.startswith(SQLITE_MAGIC):
        return "the file does not start with the SQLite header"
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    if page_size < 512 or page_size > 65536 or page_size & (page_size - 1):
        return f"the header gives an invalid page size ({page_size})"
    if header[18] not in (1, 2) or header[19] not in (1, 2):
        return "the header gives an unknown file format version"
    if header[21:24] != b"\x40\x20\x20":
        return "the header's fixed payload fractions are wrong"
    if size % page_size:
        return f"the file is {size:,} bytes, not a whole number of {page_size}-byte pages (truncated?)"
    pages = int.from_bytes(header[28:32], "big")
    valid_for = int.from_bytes(header[92:96], "big")
    change_counter = int.from_bytes(header[24:28], "big")
    if pages and valid_for == change_counter and size < pages * page_size:
        return f"the file has {size // page_size:,} pages, its header says {pages:,} (truncated)"
    return None


def problems(path: Path, *, full: bool = False, budget_s: float | None = OPEN_BUDGET_S) -> list[str]:
    """What is wrong with the store file at ``path`` (empty list: nothing found).

    The header, the tables and the ``meta`` rows are checked on every open (milliseconds).
    ``quick_check`` and the property JSON, which read the whole file, run only when the file
    changed since they last passed (:data:`STAMP_SUFFIX`), and within ``budget_s``.

    Args:
        path: a ``graph.sqlite`` file (missing or empty: nothing to check).
        full: ``PRAGMA integrity_check`` instead of ``quick_check``, whatever the stamp says.
        budget_s: stop checking (and report nothing more) after this long; ``None``: no limit.
    """
    return _examine(path, full, budget_s)[0]


def open_check(path: Path) -> tuple[list[str], bool]:
    """What the store runs before it opens ``path``: :func:`problems` within :data:`OPEN_BUDGET_S`,
    and whether that budget ran out before the whole-file checks finished (a large store no
    check has stamped: ``kg`` then says so, and names ``kg check``, which stamps it)."""
    return _examine(path, False, OPEN_BUDGET_S)


def _examine(path: Path, full: bool, budget_s: float | None) -> tuple[list[str], bool]:
    """:func:`problems`, and whether the budget ran out."""
    if not path.exists():
        return [], False
    header = header_problem(path)
    if header is not None and _settled(path):
        return [header], False
    if path.stat().st_size == 0:
        return [], False
    try:
        conn = _read_only_connection(path)
    except sqlite3.Error as e:
        return [f"SQLite cannot open it: {e}"], False
    stop_at = None if budget_s is None else time.monotonic() + budget_s

    def out_of_time() -> int:
        return 1 if stop_at is not None and time.monotonic() > stop_at else 0

    conn.set_progress_handler(out_of_time, _PROGRESS_STEPS)
    stamp = _stamp(path)
    thorough = full or _read_stamp(path) != stamp
    key = path.absolute()
    cut_short = _CUT_SHORT.get(key)
    if thorough and budget_s is not None and cut_short is not None and cut_short[0] == stamp:
        if budget_s <= cut_short[1]:  # this process checked this unchanged file as far already
            conn.close()
            return [], True
    try:
        found = _problems(conn, full, thorough)
    except sqlite3.OperationalError as e:
        if "interrupted" in str(e):
            _CUT_SHORT[key] = (stamp, budget_s if budget_s is not None else 0.0)
            return [], True  # the budget ran out: a large store; `kg check` checks it all
        if "locked" in str(e) or "busy" in str(e):
            return [], False  # a writer holds it: it is in use, not damaged
        return [f"SQLite cannot read it: {e}"], False
    except sqlite3.Error as e:
        return [f"SQLite cannot read it: {e}"], False
    finally:
        conn.close()
    if not found and thorough:
        _write_stamp(path, stamp)
    return found, False


# Beside the store: the size and modification times of the file (and its WAL) when the whole
# file last passed quick_check and the JSON check, so that an unchanged store is not read in
# full on every open (a 2 GB store would spend the whole budget each time). Any write changes
# them, and so does damage done by any tool that writes the file.
STAMP_SUFFIX = ".verified"


def _stamp_file(path: Path) -> Path:
    return path.with_name(path.name + STAMP_SUFFIX)


def _stamp(path: Path) -> str:
    """The file's size and modification time, and its WAL's when the WAL holds anything.

    An empty WAL counts as none: opening a WAL store (even read-only, as the check does) creates
    an empty one, and the last connection to close deletes it, so counting it made the stamp
    written with the WAL gone differ from the one read with it present, and every open of a
    stamped store read the whole file again.
    """
    parts = []
    for file in (path, path.with_name(path.name + "-wal")):
        try:
            st = file.stat()
        except OSError:
            parts.append("-")
            continue
        parts.append("-" if file is not path and st.st_size == 0 else f"{st.st_size}:{st.st_mtime_ns}")
    return " ".join(parts)


def verified(path: Path) -> bool:
    """Whether the file, as it is now, is the one that last passed the whole-file checks."""
    return _read_stamp(path) == _stamp(path)


def vouch(path: Path) -> None:
    """Stamp the file as verified: what a paperkg store does when it closes a file that was
    verified (or new) when it opened it.

    Why: SQLite keeps a file it writes itself consistent, so what paperkg wrote on top of a
    verified file needs no re-reading; only a change by anything else does (it moves the size
    or modification time past this stamp). Without this, a store too large to check within
    :data:`OPEN_BUDGET_S` was never stamped, and every ``kg stats``, ``kg query`` and ``kg serve``
    of the 100k store spent the whole budget (3-7 s; 61 s with the file not in the page cache)
    on a check it then abandoned.
    """
    _write_stamp(path, _stamp(path))


def _read_stamp(path: Path) -> str | None:
    try:
        return _stamp_file(path).read_text(encoding="utf-8").strip()
    except OSError:
        return None


def _write_stamp(path: Path, stamp: str) -> None:
    try:
        _stamp_file(path).write_text(stamp + "\n", encoding="utf-8")
    except OSError:
        pass  # a read-only data dir: the next open checks again


def _settled(path: Path, tries: int = 3, pause_s: float = 0.02) -> bool:
    """Does the header's problem stay while a read transaction holds the file still?

    The header is read without a lock, so a writer halfway through creating the store (page 1
    says 30 pages, the file holds 1 so far) looks truncated for a moment; a second ``kg ingest``
    started beside the first into a new data dir saw that. Under a read transaction a rollback-
    journal writer cannot write the file, so a problem seen there, ``tries`` times, is real. A
    file SQLite cannot open, or cannot read, keeps its problem; a busy one is in use, not damaged.
    """
    for attempt in range(tries):
        try:
            conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=2.0, isolation_level=None)
        except sqlite3.Error:
            return True
        try:
            conn.execute("BEGIN")
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            if header_problem(path) is None:
                return False
        except sqlite3.OperationalError as e:
            if "locked" in str(e) or "busy" in str(e):
                return False
            return True
        except sqlite3.Error:
            return True
        finally:
            conn.close()
        if attempt + 1 < tries:
            time.sleep(pause_s)
    return True


def _read_only_connection(path: Path) -> sqlite3.Connection:
    """A read-only connection; where SQLite cannot create a WAL store's shared-memory file (a
    read-only folder), one that reads the file as immutable."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=2.0, isolation_level=None)
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.OperationalError as e:
        conn.close()
        if "unable to open" not in str(e) or os.access(path.parent, os.W_OK):
            raise
        conn = sqlite3.connect(f"file:{path}?immutable=1", uri=True, timeout=2.0, isolation_level=None)
    return conn


def refuse_damaged(data_dir: Path) -> bool:
    """Raise :class:`StoreDamaged` (one line) when the store in ``data_dir`` is damaged; what
    ``kg serve`` runs before it starts, so a damaged store is one line, not a failed start-up.
    True when the check ran out of its budget (:func:`open_check`; the store's own open then
    does not read the same pages again)."""
    path = data_dir / "graph.sqlite"
    found, cut_short = open_check(path)
    if found:
        raise StoreDamaged(damaged_message(path, found))
    return cut_short


def _has_tables(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' LIMIT 1").fetchone() is not None


def _structure_problems(conn: sqlite3.Connection) -> list[str]:
    """The tables and ``meta`` rows (cheap: a few pages)."""
    found: list[str] = []
    tables = {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not tables:
        return found  # a database with nothing in it: the store sets it up
    missing = [t for t in REQUIRED_TABLES if t not in tables]
    if missing:
        return [f"tables missing: {', '.join(missing)} (not a paperkg store?)"]
    meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    fmt, version = meta.get("format"), meta.get("version")
    if not isinstance(fmt, int) or isinstance(fmt, bool):
        found.append(f"meta 'format' is {fmt!r}, not a format number")
    elif fmt != schema.FORMAT:
        found.append(f"meta 'format' is {fmt}, this paperkg reads format {schema.FORMAT}")
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        found.append(f"meta 'version' is {version!r}, not a non-negative integer")
    return found


def _problems(conn: sqlite3.Connection, full: bool, thorough: bool = True) -> list[str]:
    found = _structure_problems(conn)
    if found or not thorough or not _has_tables(conn):
        # No tables: another process is setting the store up (its schema not committed yet), so
        # there is nothing to read; looking for rows gave "no such table: nodes", and a second
        # `kg ingest` started beside the first into a new data dir called the store damaged.
        return found
    pragma = "integrity_check" if full else "quick_check"
    # One row can hold several newline-separated findings: one finding per line here.
    rows = [
        " ".join(line.split())
        for r in conn.execute(f"PRAGMA {pragma}(20)")
        for line in str(r[0]).splitlines()
    ]
    rows = [r for r in rows if r]
    if rows != ["ok"]:
        found += [f"{pragma}: {r}" for r in rows]
        return found
    for table, key in (("nodes", "id"), ("rels", "start")):
        bad = conn.execute(
            f"SELECT {key} FROM {table} WHERE props IS NOT NULL "  # noqa: S608 - fixed names
            "AND NOT json_valid(CAST(props AS TEXT)) LIMIT 3"
        ).fetchall()
        found += [f"{table} row {row[0]!r}: property JSON is not valid" for row in bad]
    return found


def damaged_message(path: Path, found: list[str]) -> str:
    """The one line ``kg`` prints for a damaged store."""
    more = f" (and {len(found) - 1} more problem(s))" if len(found) > 1 else ""
    return (
        f"{path} is damaged: {found[0]}{more}; it was not opened. Run `kg check` for details, "
        "move it away and ingest again"
    )


def full_check(data_dir: Path) -> tuple[list[str], bool]:
    """``kg check``: the lines to print and whether the store is sound; every check, in full
    (``integrity_check``, no time budget)."""
    path = data_dir / "graph.sqlite"
    if not path.exists():
        return [f"{path}: no store yet (nothing to check)"], True
    t0 = time.perf_counter()
    found = problems(path, full=True, budget_s=None)
    took = time.perf_counter() - t0
    if not found:
        what = "header, integrity_check, format and version, property JSON"
        return [f"{path}: ok ({what}; {took:.1f} s)"], True
    return [f"{path}: damaged: {p}" for p in found] + [
        "move it away and ingest again (the listings are the source; the store is rebuilt from them)"
    ], False
