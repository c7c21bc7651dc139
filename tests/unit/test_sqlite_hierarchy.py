"""The embedded store's closures come from the version's hierarchy held in memory
(:mod:`kg.stores.held.hierarchy`) and answer what the recursive statement over ``rels`` did."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from kg.core.models import Node, PaperRecord, Relationship
from kg.stores.sqlite import DB_FILE, SQLiteStore, held_rows

# The statement closures were answered by before the hierarchy was held: the reference.
WALK = (
    "WITH RECURSIVE below(id) AS (SELECT ? UNION "
    "SELECT r.start FROM rels r JOIN below b ON r.\"end\" = b.id WHERE r.type = 'BROADER') "
    "SELECT b.id FROM below b JOIN nodes n ON n.id = b.id WHERE b.id <> ? ORDER BY b.id LIMIT ?"
)


def _walked(c: sqlite3.Connection, concept_id: str, limit: int) -> list[str]:
    head = [concept_id] if c.execute("SELECT 1 FROM nodes WHERE id = ?", (concept_id,)).fetchone() else []
    return head + [r[0] for r in c.execute(WALK, (concept_id, concept_id, max(0, limit - 1)))]


def _broad_concepts(c: sqlite3.Connection) -> list[str]:
    return [r[0] for r in c.execute("SELECT DISTINCT \"end\" FROM rels WHERE type = 'BROADER' ORDER BY 1")]


def test_every_closure_is_the_walk_of_the_relationships(tmp_path: Path, seed_records: list[Any]) -> None:
    store = SQLiteStore(tmp_path)
    store.upsert(seed_records)
    c = sqlite3.connect(tmp_path / DB_FILE)
    broad = _broad_concepts(c)
    assert len(broad) >= 5  # the shipped vocabulary has a hierarchy
    deep = [b for b in broad if len(_walked(c, b, 5000)) > 3]
    assert deep, "some concept has more than two concepts below it"
    for concept_id in [*broad, "concept:missing", store.list_concepts(None, None, "NAME", 0, 1).ids[0]]:
        for limit in (5000, 3, 1, 0):
            assert store.narrower_closure(concept_id, limit) == _walked(c, concept_id, limit), (
                concept_id,
                limit,
            )


def test_a_closure_follows_the_store_version_and_walks_through_links_to_no_node(
    tmp_path: Path, seed_records: list[Any]
) -> None:
    store = SQLiteStore(tmp_path)
    store.upsert(seed_records)
    c = sqlite3.connect(tmp_path / DB_FILE)
    top = _broad_concepts(c)[0]
    before = store.narrower_closure(top, 5000)
    # A new concept under it, written as any record writes it: the next closure has it.
    child = Node(id="concept:zz-new-narrower", label="Concept", properties={"name": "zz new narrower"})
    paper = seed_records[0]
    store.upsert(
        [
            PaperRecord(
                paper=paper.paper,
                nodes=[*paper.nodes, child],
                relationships=[
                    *paper.relationships,
                    Relationship(start=child.id, type="BROADER", end=top, properties={}),
                ],
            )
        ]
    )
    assert store.narrower_closure(top, 5000) == sorted([*before, child.id], key=lambda i: (i != top, i))
    # A link from no node (written behind the store's back): walked through, not listed, as the
    # recursive statement did.
    c.execute(
        "INSERT INTO rels (start, type, \"end\") VALUES ('concept:zz-ghost', 'BROADER', ?)", (child.id,)
    )
    c.execute(
        "INSERT INTO rels (start, type, \"end\") VALUES (?, 'BROADER', 'concept:zz-ghost')", (before[-1],)
    )
    c.execute("UPDATE meta SET value = value + 1 WHERE key = 'version'")
    c.commit()
    assert "concept:zz-ghost" not in store.narrower_closure(top, 5000)
    assert store.narrower_closure(child.id, 5000) == _walked(c, child.id, 5000)
    assert before[-1] in store.narrower_closure(child.id, 5000)


def test_a_store_without_the_hierarchy_index_is_answered_by_the_walk(
    tmp_path: Path, seed_records: list[Any]
) -> None:
    store = SQLiteStore(tmp_path)
    store.upsert(seed_records)
    store.close()
    c = sqlite3.connect(tmp_path / DB_FILE)
    assert held_rows.hierarchy(c) is not None
    c.execute("DROP INDEX broader_links")
    c.commit()
    assert held_rows.hierarchy(c) is None  # a read-only store of an older paperkg
    expected = {b: _walked(c, b, 5000) for b in _broad_concepts(c)}
    again = SQLiteStore(tmp_path)  # opened writable: the index is created again
    assert held_rows.hierarchy(again._reader()) is not None
    assert {b: again.narrower_closure(b, 5000) for b in expected} == expected
