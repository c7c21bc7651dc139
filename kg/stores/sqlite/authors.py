"""Author resolution's two store operations on SQLite: read stored slots, re-point them.

Why here and not in the upsert: an upsert only merges (properties and edges accumulate), while
a later ingest can show that a stored slot belongs to another person (a profile id arrives for
a name that was ambiguous) or that a person's name variants changed. :func:`reassign` is the one
place that moves ``AUTHORED`` edges and replaces Author properties, keeping every derived column
(``paper_count``, ``ties``, ``name_keys``, ``COAUTHOR`` weights) as the upsert would have left it.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Sequence

from kg.core.derived import coauthor_deltas, coauthor_pairs_allowed
from kg.core.merge import merge_properties
from kg.core.models import Properties
from kg.stores.protocol import AuthorMove, StoredSlot
from kg.stores.sqlite import schema
from kg.stores.sqlite.batch_writes import write_pairs
from kg.stores.sqlite.reads import chunked

_EDGE = "SELECT props FROM rels WHERE start = ? AND type = 'AUTHORED' AND \"end\" = ?"
_DROP_EDGE = "DELETE FROM rels WHERE start = ? AND type = 'AUTHORED' AND \"end\" = ?"


def _marks(items: Sequence[object]) -> str:
    return ",".join("?" * len(items))


def author_slots(c: sqlite3.Connection, name_keys: Sequence[str]) -> list[StoredSlot]:
    """See :meth:`kg.stores.protocol.GraphStore.author_slots`."""
    authors: set[str] = set()
    keys = sorted({schema.AUTHOR_PREFIX + k for k in name_keys})
    for chunk in chunked(keys):
        authors.update(
            r[0] for r in c.execute(f"SELECT node_id FROM name_keys WHERE key IN ({_marks(chunk)})", chunk)
        )
    edges: list[tuple[str, str, Properties]] = []
    for chunk in chunked(sorted(authors)):
        edges.extend(
            (a, p, schema.loads(b))
            for a, p, b in c.execute(
                f'SELECT start, "end", props FROM rels WHERE start IN ({_marks(chunk)}) '
                "AND type = 'AUTHORED'",
                chunk,
            )
        )
    papers = sorted({p for _, p, _ in edges})
    year: dict[str, int | None] = {}
    venue: dict[str, str | None] = {}
    bylines: dict[str, list[tuple[str, int, str]]] = defaultdict(list)
    for chunk in chunked(papers):
        m = _marks(chunk)
        year.update(c.execute(f"SELECT id, year FROM nodes WHERE id IN ({m})", chunk).fetchall())
        for pid, vprops in c.execute(
            f'SELECT r.start, v.props FROM rels r JOIN nodes v ON v.id = r."end" '
            f"WHERE r.start IN ({m}) AND r.type = 'PUBLISHED_IN'",
            chunk,
        ):
            series = schema.loads(vprops).get("series")
            venue[pid] = None if series is None else str(series)
        for author, pid, rprops, nprops in c.execute(
            f'SELECT r.start, r."end", r.props, n.props FROM rels r JOIN nodes n ON n.id = r.start '
            f"WHERE r.\"end\" IN ({m}) AND r.type = 'AUTHORED'",
            chunk,
        ):
            edge = schema.loads(rprops)
            name = edge.get("name") or schema.loads(nprops).get("name") or ""
            bylines[pid].append((author, _position(edge), str(name)))
    out = []
    for author, pid, props in sorted(edges, key=lambda e: (e[0], e[1])):
        others = tuple(sorted((pos, name) for a, pos, name in bylines[pid] if a != author))
        out.append(StoredSlot(author, pid, props, year.get(pid), venue.get(pid), others))
    return out


def _position(props: Properties) -> int:
    value = props.get("position")
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def reassign(c: sqlite3.Connection, moves: Sequence[AuthorMove], nodes: dict[str, Properties]) -> bool:
    """See :meth:`kg.stores.protocol.GraphStore.reassign_authors`; True when anything changed."""
    changed = _set_nodes(c, nodes)
    papers = sorted({m.paper for m in moves})
    before: dict[str, set[str]] = defaultdict(set)
    allowed: dict[str, bool] = {}
    for chunk in chunked(papers):
        m = _marks(chunk)
        for a, p in c.execute(
            f'SELECT start, "end" FROM rels WHERE "end" IN ({m}) AND type = \'AUTHORED\'', chunk
        ):
            before[p].add(a)
        for pid, blob in c.execute(f"SELECT id, props FROM nodes WHERE id IN ({m})", chunk):
            allowed[pid] = coauthor_pairs_allowed(schema.loads(blob))
    after = {p: set(a) for p, a in before.items()}
    degree: dict[str, int] = defaultdict(int)
    olds: set[str] = set()
    for move in sorted(set(moves)):
        if move.old == move.new:
            continue
        row = c.execute(
            "SELECT props FROM rels WHERE start = ? AND type = 'AUTHORED' AND \"end\" = ?",
            (move.old, move.paper),
        ).fetchone()
        if row is None:
            continue
        props = schema.loads(row[0])
        c.execute(
            "DELETE FROM rels WHERE start = ? AND type = 'AUTHORED' AND \"end\" = ?", (move.old, move.paper)
        )
        degree[move.old] -= 1
        olds.add(move.old)
        existing = c.execute(
            "SELECT props FROM rels WHERE start = ? AND type = 'AUTHORED' AND \"end\" = ?",
            (move.new, move.paper),
        ).fetchone()
        if existing is not None:
            props = merge_properties(schema.loads(existing[0]), props)
        else:
            degree[move.new] += 1
        c.execute(
            'INSERT OR REPLACE INTO rels (start, type, "end", props, weight, about, position, rank) '
            "VALUES (?, 'AUTHORED', ?, ?, NULL, ?, ?, ?)",
            (move.new, move.paper, schema.dumps(props), *schema.rel_columns("AUTHORED", props)),
        )
        after[move.paper].discard(move.old)
        after[move.paper].add(move.new)
        changed = True
    pairs = coauthor_deltas(papers, before, after, allowed)
    ties: dict[str, int] = defaultdict(int)
    for (a, b), n in pairs.items():
        ties[a] += n
        ties[b] += n
    write_pairs(c, [((a, "COAUTHOR", b), n) for (a, b), n in sorted(pairs.items()) if n])
    c.executemany(
        "UPDATE nodes SET paper_count = paper_count + ?, ties = ties + ? WHERE id = ?",
        [(degree.get(i, 0), ties.get(i, 0), i) for i in sorted(degree.keys() | ties.keys())],
    )
    for old in sorted(olds):
        if c.execute("SELECT 1 FROM rels WHERE start = ? AND type = 'AUTHORED' LIMIT 1", (old,)).fetchone():
            continue
        c.execute('DELETE FROM rels WHERE start = ? OR "end" = ?', (old, old))
        c.execute("DELETE FROM name_keys WHERE node_id = ?", (old,))
        c.execute("DELETE FROM nodes WHERE id = ?", (old,))
    if changed:
        c.execute("UPDATE meta SET value = value + 1 WHERE key = 'version'")
    return changed


def _set_nodes(c: sqlite3.Connection, nodes: dict[str, Properties]) -> bool:
    """Author nodes set to exactly ``nodes`` (created when missing); True when any changed."""
    changed = False
    for nid in sorted(nodes):
        props = nodes[nid]
        row = c.execute("SELECT props FROM nodes WHERE id = ?", (nid,)).fetchone()
        if row is not None and schema.loads(row[0]) == props:
            continue
        cols = schema.node_columns(nid, "Author", props)
        if row is None:
            c.execute(
                "INSERT INTO nodes (id, label, props, name, sort_key, year, kind, source, search_text, "
                "paper_count, ties) VALUES (?,?,?,?,?,?,?,?,?,0,0)",
                (nid, "Author", schema.dumps(props), *cols),
            )
        else:
            c.execute(
                "UPDATE nodes SET props=?, name=?, sort_key=?, year=?, kind=?, source=?, search_text=? "
                "WHERE id=?",
                (schema.dumps(props), *cols, nid),
            )
        c.execute("DELETE FROM name_keys WHERE node_id = ?", (nid,))
        c.executemany(
            "INSERT OR IGNORE INTO name_keys (key, rank, node_id) VALUES (?,?,?)",
            schema.name_key_rows(nid, "Author", props),
        )
        changed = True
    return changed
