"""The institution graph on SQLite (:mod:`kg.authors.institutions`): read the slots, replace the graph.

Why a whole replacement: the graph is derived from every stored ``AUTHORED`` edge, and is
small (one node per institution, one edge per author and institution); :func:`kg.authors.institutions.sync`
calls :func:`replace` only when the derived graph differs from the stored one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from kg.authors.institutions import SLOT_PROPERTY, graph_digest
from kg.core.models import Node, Relationship
from kg.stores.sqlite import schema


def affiliation_rows(c: sqlite3.Connection) -> list[tuple[str, str, object, object]]:
    """See :meth:`kg.stores.protocol.GraphStore.affiliation_rows`."""
    out: list[tuple[str, str, object, object]] = []
    rows = c.execute(
        'SELECT r.start, r."end", p.year, r.props FROM rels r JOIN nodes p ON p.id = r."end" '
        "WHERE r.type = 'AUTHORED' AND instr(r.props, ?) > 0 ORDER BY r.start, r.\"end\"",
        (b'"' + SLOT_PROPERTY.encode() + b'"',),
    )
    for author, paper, year, blob in rows:
        entries = schema.loads(blob).get(SLOT_PROPERTY)
        if isinstance(entries, list) and entries:
            out.append((author, paper, year, entries))
    return out


def digest(c: sqlite3.Connection) -> str:
    """See :meth:`kg.stores.protocol.GraphStore.institutions_digest` (rows streamed from cursors)."""
    nodes = c.execute("SELECT id, props FROM nodes WHERE label = 'Institution'")
    rels = c.execute("SELECT start, \"end\", props FROM rels WHERE type = 'AFFILIATED_WITH'")
    return graph_digest(
        ((nid, schema.loads(blob)) for nid, blob in nodes),
        ((start, end, schema.loads(blob)) for start, end, blob in rels),
    )


def replace(c: sqlite3.Connection, nodes: Sequence[Node], rels: Sequence[Relationship]) -> None:
    """See :meth:`kg.stores.protocol.GraphStore.replace_institutions` (inside a transaction).

    Rows are handed to ``executemany`` one at a time (a generator, not a list of 131k encoded
    rows at 100k papers)."""
    c.execute("DELETE FROM rels WHERE type = 'AFFILIATED_WITH'")
    c.execute("DELETE FROM nodes WHERE label = 'Institution'")
    c.executemany(
        "INSERT INTO nodes (id, label, props, name, sort_key, year, kind, source, search_text, "
        "paper_count, ties) VALUES (?,?,?,?,?,?,?,?,?,0,0)",
        (
            (
                n.id,
                "Institution",
                schema.dumps(n.properties),
                *schema.node_columns(n.id, n.label, n.properties),
            )
            for n in nodes
        ),
    )
    c.executemany(
        "INSERT INTO rels (start, type, \"end\", props) VALUES (?, 'AFFILIATED_WITH', ?, ?)",
        ((r.start, r.end, schema.dumps(r.properties)) for r in rels),
    )
    c.execute("UPDATE meta SET value = value + 1 WHERE key = 'version'")
