"""Concept curation's store operation on SQLite: remove concepts and links, derived values kept.

Why here and not in the upsert: an upsert only merges, while a user's decision about a concept
(:mod:`kg.curation.concept_apply`) removes a node (hidden, or merged into another) or a link (a
placement replaces a concept's ``BROADER`` links). :func:`remove` keeps every derived column
(``paper_count``, ``ties``, ``name_keys``, the full-text rows, ``CO_OCCURS`` weights) as an
ingest of the remaining graph would have left it; the ``CO_OCCURS`` pairs follow each touched
paper's top concepts before and after (:func:`kg.core.derived.cooccurs_changes`).
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Callable, Sequence

from kg.core.derived import cooccurs_deltas
from kg.core.provisional import relinked_row
from kg.stores.sqlite import schema
from kg.stores.sqlite.batch_writes import write_pairs
from kg.stores.sqlite.reads import chunked

RelKey = tuple[str, str, str]


def _marks(items: Sequence[object]) -> str:
    return ",".join("?" * len(items))


def _score(blob: bytes | str | None) -> float:
    value = schema.loads(blob).get("score")
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def remove(c: sqlite3.Connection, concepts: Sequence[str], links: Sequence[RelKey]) -> bool:
    """See :meth:`kg.stores.protocol.GraphStore.remove_concepts`; True when anything changed."""
    gone = sorted(set(concepts))
    found: list[str] = []
    for chunk in chunked(gone):
        found.extend(
            r[0]
            for r in c.execute(
                f"SELECT id FROM nodes WHERE id IN ({_marks(chunk)}) AND label = 'Concept'", chunk
            )
        )
    gone = sorted(found)
    cut = sorted(
        k
        for k in set(links)
        if k[1] in ("MENTIONS", "INTRODUCES", "BROADER") and k[0] not in gone and k[2] not in gone
    )
    cut = [
        k
        for k in cut
        if c.execute('SELECT 1 FROM rels WHERE start = ? AND type = ? AND "end" = ?', k).fetchone()
    ]
    if not gone and not cut:
        return False
    # Papers whose mentions change, with every mention's score before the change.
    papers: set[str] = {k[0] for k in cut if k[1] == "MENTIONS"}
    for chunk in chunked(gone):
        papers.update(
            r[0]
            for r in c.execute(
                f"SELECT start FROM rels WHERE \"end\" IN ({_marks(chunk)}) AND type = 'MENTIONS'", chunk
            )
        )
    mentions: dict[str, dict[str, float]] = defaultdict(dict)
    for chunk in chunked(sorted(papers)):
        for start, end, blob in c.execute(
            f"SELECT start, \"end\", props FROM rels WHERE start IN ({_marks(chunk)}) AND type = 'MENTIONS'",
            chunk,
        ):
            mentions[start][end] = _score(blob)
    removed = set(gone)
    cut_mentions = {(k[0], k[2]) for k in cut if k[1] == "MENTIONS"}
    deltas = cooccurs_deltas({pid: mentions[pid] for pid in papers}, removed, cut_mentions)
    # Concepts whose ties or paper count change: partners of the removed ones, ends of cut links.
    touched: set[str] = {a for pair in deltas for a in pair} | {k[2] for k in cut}
    for chunk in chunked(gone):
        m = _marks(chunk)
        touched.update(
            r[0]
            for r in c.execute(
                f"SELECT \"end\" FROM rels WHERE start IN ({m}) AND type = 'CO_OCCURS' "
                f"UNION SELECT start FROM rels WHERE \"end\" IN ({m}) AND type = 'CO_OCCURS'",
                chunk + chunk,
            )
        )
    touched -= removed
    c.executemany('DELETE FROM rels WHERE start = ? AND type = ? AND "end" = ?', cut)
    write_pairs(c, [((a, "CO_OCCURS", b), n) for (a, b), n in sorted(deltas.items()) if n])
    for cid in gone:
        c.execute('DELETE FROM rels WHERE start = ? OR "end" = ?', (cid, cid))
        c.execute("DELETE FROM name_keys WHERE node_id = ?", (cid,))
        c.execute("DELETE FROM fts WHERE rowid = (SELECT rowid FROM nodes WHERE id = ?)", (cid,))
        c.execute("DELETE FROM keyphrases WHERE concept_id = ?", (cid,))
        c.execute("DELETE FROM nodes WHERE id = ?", (cid,))
    c.executemany(
        "UPDATE nodes SET ties = (SELECT COALESCE(SUM(weight), 0) FROM rels r "
        "WHERE r.start = nodes.id AND r.type = 'CO_OCCURS') + (SELECT COALESCE(SUM(weight), 0) "
        "FROM rels r WHERE r.\"end\" = nodes.id AND r.type = 'CO_OCCURS'), "
        "paper_count = (SELECT COUNT(*) FROM rels r WHERE r.\"end\" = nodes.id AND r.type = 'MENTIONS' "
        "AND r.about >= 1) WHERE id = ? AND label = 'Concept'",
        [(cid,) for cid in sorted(touched)],
    )
    c.execute("UPDATE meta SET value = value + 1 WHERE key = 'version'")
    return True


def relink(c: sqlite3.Connection, concept_ids: Sequence[str], fn: Callable[[list[str]], list[str]]) -> bool:
    """See :meth:`kg.stores.protocol.GraphStore.relink_keyphrases`; True when a row changed."""
    ids = sorted(set(concept_ids))
    if not ids:
        return False
    where = " OR ".join("instr(CAST(node AS TEXT), ?) > 0" for _ in ids)
    updates = []
    for cid, pid, blob in c.execute(f"SELECT concept_id, paper_id, node FROM keyphrases WHERE {where}", ids):
        changed = relinked_row(schema.loads(blob), ids, fn)
        if changed is not None:
            updates.append((schema.dumps(changed), cid, pid))
    c.executemany("UPDATE keyphrases SET node = ? WHERE concept_id = ? AND paper_id = ?", updates)
    if updates:
        c.execute("UPDATE meta SET value = value + 1 WHERE key = 'version'")
    return bool(updates)
