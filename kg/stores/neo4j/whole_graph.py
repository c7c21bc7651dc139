"""The whole-graph reads of the Neo4j store: counts, export, and every node of a label or
relationship of a type (``kg stats``, ``kg export``, ``kg check``, the pictures).

A mixin of :class:`kg.stores.neo4j.store.Neo4jStore`, apart from its writes and its per-id reads
because these walk the whole graph: they stream (export) or are answered from the count store
(counts), and none of them is on a request's path.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

import neo4j

from kg.core.models import Graph, Label, Node, Relationship, RelType, StoreCounts, trusted_node
from kg.stores.neo4j import queries as q
from kg.stores.neo4j.batch_writes import label_of, strip_internal


def rel_properties(props: dict[str, Any]) -> dict[str, Any]:
    """A relationship's properties without the Neo4j-only ones (a derived pair's key)."""
    return {k: v for k, v in props.items() if k not in q.INTERNAL_REL_PROPERTIES}


def stored_node(node_id: str, labels: Sequence[str], props: dict[str, Any]) -> Node:
    """The node of a stored ``id``, ``labels(n)`` and ``properties(n)``, built without pydantic's
    validation (:func:`kg.core.models.trusted_node`, as the SQLite store reads its nodes).

    Why: every value was validated when it was written, and the server gives back the types it
    was given (strings, numbers, booleans, lists of one of them); validating again cost 3.8 us
    an author and 8.1 us a paper against 1.1 and 1.6 (a co-author page reads up to 1,000 nodes).
    """
    return trusted_node(node_id, label_of(labels), strip_internal(props))


def node_of(row: neo4j.Record) -> Node:
    """The node of a row ``{id, labels, props}`` (:func:`kg.stores.neo4j.queries.all_nodes`)."""
    return stored_node(row["id"], row["labels"], row["props"])


def rel_of(row: neo4j.Record) -> Relationship:
    """The relationship of a row ``{type, start, end, props}``."""
    return Relationship.model_validate(
        {
            "type": row["type"],
            "start": row["start"],
            "end": row["end"],
            "properties": rel_properties(row["props"]),
        }
    )


class Neo4jWholeGraph:
    """The ``GraphStore`` reads over the whole graph (mixin; see the module docstring)."""

    if TYPE_CHECKING:  # provided by Neo4jStore
        _driver: neo4j.Driver
        _database: str | None
        _bookmarks: neo4j.BookmarkManager

        def _errors(self) -> AbstractContextManager[None]: ...

        def _read(self, stmt: q.Statement) -> list[neo4j.Record]: ...

    def nodes_by_label(self, label: Label) -> list[Node]:
        return sorted((node_of(row) for row in self._read(q.nodes_with_label(label))), key=lambda n: n.id)

    def relationships(self, rel_type: RelType) -> list[Relationship]:
        rels = [rel_of(row) for row in self._read(q.relationships_of_type(rel_type))]
        return sorted(rels, key=lambda r: (r.start, r.end))

    def counts(self) -> StoreCounts:
        return StoreCounts.tally((row["kind"], row["name"], row["n"]) for row in self._read(q.counts()))

    def export(self) -> Graph:
        nodes = sorted((node_of(row) for row in self._read(q.all_nodes())), key=lambda n: n.id)
        rels = sorted(
            (rel_of(row) for row in self._read(q.all_relationships())),
            key=lambda r: (r.type, r.start, r.end),
        )
        return Graph(nodes=nodes, relationships=rels)

    def iter_nodes(self) -> Iterator[Node]:
        stmt = q.all_nodes()
        for row in self._stream(stmt.text + " ORDER BY id", stmt.params):
            yield node_of(row)

    def iter_relationships(self) -> Iterator[Relationship]:
        stmt = q.all_relationships()
        for row in self._stream(stmt.text + " ORDER BY start, type, end", stmt.params):
            yield rel_of(row)

    def _stream(self, text: str, params: dict[str, Any]) -> Iterator[neo4j.Record]:
        """Records as the driver fetches them (a page at a time), not materialised: export only."""
        with (
            self._errors(),
            self._driver.session(database=self._database, bookmark_manager=self._bookmarks) as session,
        ):
            yield from session.run(text, params)
