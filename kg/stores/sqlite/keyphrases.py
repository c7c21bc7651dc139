"""The SQLite side of provisional concepts (:mod:`kg.core.provisional`): the ``keyphrases`` table."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from kg.core.models import PaperRecord, Properties
from kg.core.provisional import Plan, concept_ids, plan, provisional_ids
from kg.stores.sqlite import schema
from kg.stores.sqlite.reads import chunked


def plan_batch(c: sqlite3.Connection, records: Sequence[PaperRecord]) -> Plan:
    """:func:`kg.core.provisional.plan` over what the store holds for the batch's provisional ids."""
    existing: set[str] = set()
    stored: dict[str, dict[str, tuple[Properties, Properties]]] = {}
    for chunk in chunked(provisional_ids(records)):
        marks = ",".join("?" * len(chunk))
        existing.update(row[0] for row in c.execute(f"SELECT id FROM nodes WHERE id IN ({marks})", chunk))
    for chunk in chunked(concept_ids(records)):
        marks = ",".join("?" * len(chunk))
        for cid, pid, node, rel in c.execute(
            f"SELECT concept_id, paper_id, node, rel FROM keyphrases WHERE concept_id IN ({marks})", chunk
        ):
            stored.setdefault(cid, {})[pid] = (schema.loads(node), schema.loads(rel))
    return plan(records, existing, stored)


def write(c: sqlite3.Connection, p: Plan) -> None:
    """Apply the keyphrase-table side of a plan (inside the batch's transaction).

    Rows go in key order: concept ids are content hashes, so in plan order each row lands on a
    random leaf of the table's B-tree; sorted, neighbours share leaves and the commit writes
    fewer pages.
    """
    keep = p.keep.items()  # unique keys: sorting never compares the property maps
    c.executemany(
        "INSERT OR REPLACE INTO keyphrases (concept_id, paper_id, node, rel, key, about) "
        "VALUES (?,?,?,?,?,?)",
        [
            (cid, pid, schema.dumps(node), schema.dumps(rel), *schema.keyphrase_columns(node, rel))
            for (cid, pid), (node, rel) in sorted(keep)
        ],
    )
    c.executemany("DELETE FROM keyphrases WHERE concept_id = ?", [(cid,) for cid in sorted(p.drop)])
