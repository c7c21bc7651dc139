"""The ``GraphStore`` protocol: the one interface both backends implement.

Batch reads return results in key order, one per key (``None`` or ``[]`` when missing), because
the API's DataLoaders depend on it; the contract suite in ``tests/contract`` checks this for
every backend.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, NamedTuple, Protocol, runtime_checkable

from kg.models import (
    Graph,
    Label,
    Node,
    PaperRecord,
    Relationship,
    RelType,
    StoreCounts,
    UpsertSummary,
)

Direction = Literal["out", "in", "both"]


class Edge(NamedTuple):
    """A relationship seen from one node: the relationship and the node at its other end."""

    rel: Relationship
    node: Node


class SearchHit(NamedTuple):
    """A ranked full-text hit."""

    node: Node
    score: float


@runtime_checkable
class GraphStore(Protocol):
    """Where the graph lives. Writes are idempotent upserts; reads never mutate.

    Example:
        >>> from kg.networkx_store import NetworkXStore
        >>> store = NetworkXStore()  # in memory, not persisted
        >>> store.counts().nodes["Paper"]
        0
    """

    backend_name: str

    def upsert(self, records: Sequence[PaperRecord]) -> UpsertSummary:
        """Merge papers with their nodes and relationships; derived COAUTHOR/CO_OCCURS follow.

        Existing properties are kept unless the record gives a non-null value; list properties
        named in ``kg.merge.UNION_LIST_PROPERTIES`` are unioned. The batch is atomic: on error
        nothing of it is visible.
        """
        ...

    def get_nodes(self, ids: Sequence[str]) -> list[Node | None]:
        """Nodes by id, in key order, ``None`` for a missing id."""
        ...

    def nodes_by_label(self, label: Label) -> list[Node]:
        """Every node with this label, sorted by id."""
        ...

    def neighbors_many(
        self, ids: Sequence[str], rel_type: RelType, direction: Direction = "out"
    ) -> list[list[Edge]]:
        """For each id (in key order) its relationships of one type, with the nodes at the other end.

        Each inner list is sorted by (other node id); empty when the node is missing.
        """
        ...

    def degree_many(self, ids: Sequence[str], rel_type: RelType, direction: Direction = "out") -> list[int]:
        """For each id, the number of relationships of one type (0 when missing)."""
        ...

    def relationships(self, rel_type: RelType) -> list[Relationship]:
        """All relationships of one type, sorted by (start, end): projections for analytics."""
        ...

    def search(self, text: str, limit: int = 20) -> list[SearchHit]:
        """Full-text search over paper titles/abstracts and concept names/aliases, best first."""
        ...

    def counts(self) -> StoreCounts:
        """Node counts per label and relationship counts per type (all labels/types present)."""
        ...

    def export(self) -> Graph:
        """The whole graph, nodes sorted by id and relationships by (type, start, end)."""
        ...

    def flush(self) -> None:
        """Make every upsert so far durable (the embedded store writes its file atomically)."""
        ...

    def ping(self) -> None:
        """Raise :class:`kg.errors.StoreUnavailable` when the store cannot answer."""
        ...

    def clear(self) -> None:
        """Delete everything (tests and ``kg reset``)."""
        ...

    def close(self) -> None:
        """Release resources; the store is unusable afterwards."""
        ...
