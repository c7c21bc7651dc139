"""A deterministic dump of an embedded store: every table, every row, sorted (run by hand).

Why: a change to the writer must leave the graph exactly as it was. Two stores built from the
same records by two versions of the code are equal when their dumps are equal, byte for byte;
so this dump must not depend on the order rows were written in. Each table is dumped with its
columns in schema order and its rows sorted; a node's ``rowid`` is left out (it is the insert
order, which a writer may change without changing the graph) and the FTS rows, keyed by that
rowid, are dumped against the node id instead. JSON property blobs are compared as stored, key
order included (the API returns maps in that order); ``--sort-keys`` re-serialises them with
sorted keys, for stores written from the same records in a different order.

    python bench/sqlite_dump.py DATA_DIR > dump.txt            # one store
    python bench/sqlite_dump.py DATA_DIR_A DATA_DIR_B          # compare two: exit 1 on a difference
"""

from __future__ import annotations

import argparse
import hashlib
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

import orjson

DB_FILE = "graph.sqlite"
BLOB_COLUMNS = {"props", "node", "rel"}  # JSON property maps
SKIP_COLUMNS = {("nodes", "rowid")}


def _cell(column: str, value: object, sort_keys: bool) -> str:
    if column in BLOB_COLUMNS and isinstance(value, bytes | str):
        if sort_keys:
            return orjson.dumps(orjson.loads(value), option=orjson.OPT_SORT_KEYS).decode()
        return value.decode() if isinstance(value, bytes) else value
    return repr(value)


def _tables(conn: sqlite3.Connection) -> list[str]:
    rows = conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "AND name NOT LIKE 'fts_%' ORDER BY name"
    )
    return [r[0] for r in rows]


def dump_lines(path: Path, sort_keys: bool = False) -> Iterator[str]:
    """The dump of the store at ``path`` (a data dir or the ``.sqlite`` file), line by line."""
    db = path / DB_FILE if path.is_dir() else path
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        for table in _tables(conn):
            if table == "fts":
                yield "## fts"
                rows = conn.execute(
                    "SELECT n.id, f.title, f.abstract, f.name, f.aliases FROM fts f "
                    "LEFT JOIN nodes n ON n.rowid = f.rowid"
                )
                yield from sorted(" | ".join(repr(v) for v in row) for row in rows)
                continue
            columns = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]  # noqa: S608
            kept = [c for c in columns if (table, c) not in SKIP_COLUMNS]
            yield f"## {table} ({', '.join(kept)})"
            names = ", ".join(f'"{c}"' for c in kept)
            rows = conn.execute(f"SELECT {names} FROM {table}")  # noqa: S608 - names from the schema
            yield from sorted(
                " | ".join(_cell(c, v, sort_keys) for c, v in zip(kept, row, strict=True)) for row in rows
            )
    finally:
        conn.close()


def digest(path: Path, sort_keys: bool = False) -> tuple[str, int]:
    """(sha256 of the dump, number of lines)."""
    h = hashlib.sha256()
    n = 0
    for line in dump_lines(path, sort_keys):
        h.update(line.encode() + b"\n")
        n += 1
    return h.hexdigest(), n


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("stores", type=Path, nargs="+", help="one data dir to dump, or two to compare")
    parser.add_argument("--sort-keys", action="store_true", help="ignore the key order inside property maps")
    args = parser.parse_args(argv)
    if len(args.stores) == 1:
        for line in dump_lines(args.stores[0], args.sort_keys):
            sys.stdout.write(line + "\n")
        return 0
    if len(args.stores) != 2:
        parser.error("give one store to dump or two to compare")
    a, b = (list(dump_lines(p, args.sort_keys)) for p in args.stores)
    if a == b:
        print(f"identical: {len(a)} lines, sha256 {digest(args.stores[0], args.sort_keys)[0]}")
        return 0
    diff = [(i, x, y) for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y]
    print(f"DIFFERENT: {len(a)} vs {len(b)} lines, {len(diff)} differing positions")
    for i, x, y in diff[:10]:
        print(f"  line {i}:\n    - {x[:300]}\n    + {y[:300]}")
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
