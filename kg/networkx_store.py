"""The embedded store: a networkx MultiDiGraph persisted atomically under ``KG_DATA_DIR``.

It needs no server, so it is the default backend. Writes go to memory; :meth:`flush` writes a
temp file and renames it over the old one, so an interrupted ingest leaves the previous graph
loadable.
"""

from __future__ import annotations

import itertools
import os
import pickle
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import networkx as nx

from kg.derived import new_pairs, top_concepts
from kg.errors import GraphStoreError
from kg.merge import merge_properties
from kg.models import (
    LABELS,
    REL_TYPES,
    Graph,
    Label,
    Node,
    PaperRecord,
    Properties,
    Relationship,
    RelType,
    StoreCounts,
    UpsertSummary,
)
from kg.stores.protocol import Direction, Edge, SearchHit
from kg.text_index import TextIndex

GRAPH_FILE = "graph.pickle"
FORMAT_VERSION = 1


class NetworkXStore:
    """:class:`kg.stores.protocol.GraphStore` on networkx.

    Args:
        data_dir: where ``graph.pickle`` lives; ``None`` keeps the graph in memory only.

    Example:
        >>> store = NetworkXStore()
        >>> store.get_nodes(["paper:missing"])
        [None]
    """

    backend_name = "memory"

    def __init__(self, data_dir: Path | None = None) -> None:
        self._path = data_dir / GRAPH_FILE if data_dir is not None else None
        self._g: nx.MultiDiGraph = nx.MultiDiGraph()
        self._index: TextIndex | None = None
        self._dirty = False
        if self._path is not None and self._path.exists():
            self._g = self._load(self._path)

    # -- persistence ---------------------------------------------------------------------------
    @staticmethod
    def _load(path: Path) -> nx.MultiDiGraph:
        try:
            with path.open("rb") as fh:
                payload = pickle.load(fh)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ValueError) as e:
            raise GraphStoreError(f"cannot load the graph from {path}: {e}") from e
        if not isinstance(payload, dict) or payload.get("format") != FORMAT_VERSION:
            raise GraphStoreError(
                f"{path} is not a paperkg graph of format {FORMAT_VERSION}; "
                "delete it (or point KG_DATA_DIR elsewhere) and ingest again"
            )
        graph = payload["graph"]
        assert isinstance(graph, nx.MultiDiGraph)
        return graph

    def flush(self) -> None:
        """Persist atomically (temp file in the same folder, fsync, rename)."""
        if self._path is None or not self._dirty:
            return
        self._path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".graph-", suffix=".tmp", dir=self._path.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                pickle.dump(
                    {"format": FORMAT_VERSION, "graph": self._g},
                    fh,
                    protocol=pickle.HIGHEST_PROTOCOL,
                )
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self._path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        self._dirty = False

    # -- writes --------------------------------------------------------------------------------
    def upsert(self, records: Sequence[PaperRecord]) -> UpsertSummary:
        self._check_batch(records)
        summary = UpsertSummary()
        for record in records:
            existed = self._g.has_node(record.paper.id)
            before = self._record_authors_concepts(record.paper.id)
            changed = False
            for node in itertools.chain([record.paper], record.nodes):
                changed |= self._merge_node(node)
            for rel in record.relationships:
                changed |= self._merge_rel(rel.start, rel.type, rel.end, rel.properties)
            after = self._record_authors_concepts(record.paper.id)
            self._bump_pairs("COAUTHOR", before[0], after[0])
            self._bump_pairs("CO_OCCURS", before[1], after[1])
            if not existed:
                summary.added += 1
            elif changed:
                summary.updated += 1
            else:
                summary.unchanged += 1
            if changed:
                self._dirty = True
                self._index = None
        return summary

    def _check_batch(self, records: Sequence[PaperRecord]) -> None:
        """Refuse a batch that cannot be applied whole, before changing anything (atomic batches)."""
        batch_ids = {n.id for r in records for n in itertools.chain([r.paper], r.nodes)}
        for record in records:
            for rel in record.relationships:
                for node_id in (rel.start, rel.end):
                    if node_id not in batch_ids and not self._g.has_node(node_id):
                        raise GraphStoreError(
                            f"relationship {rel.type} of paper {record.paper.id} refers to "
                            f"unknown node {node_id}; nothing of this batch was written"
                        )

    def _merge_node(self, node: Node) -> bool:
        if not self._g.has_node(node.id):
            self._g.add_node(node.id, label=node.label, properties=merge_properties({}, node.properties))
            return True
        data = self._g.nodes[node.id]
        merged = merge_properties(data["properties"], node.properties)
        if merged != data["properties"]:
            data["properties"] = merged
            return True
        return False

    def _merge_rel(self, start: str, rel_type: str, end: str, props: Properties) -> bool:
        for node_id in (start, end):
            if not self._g.has_node(node_id):
                raise GraphStoreError(f"relationship {rel_type} refers to unknown node {node_id}")
        if not self._g.has_edge(start, end, key=rel_type):
            self._g.add_edge(start, end, key=rel_type, properties=merge_properties({}, props))
            return True
        data = self._g.edges[start, end, rel_type]
        merged = merge_properties(data["properties"], props)
        if merged != data["properties"]:
            data["properties"] = merged
            return True
        return False

    def _record_authors_concepts(self, paper_id: str) -> tuple[set[str], set[str]]:
        if not self._g.has_node(paper_id):
            return set(), set()
        authors = {u for u, _, k in self._g.in_edges(paper_id, keys=True) if k == "AUTHORED"}
        mentions = [
            (v, float(d["properties"].get("score") or 0.0))
            for _, v, k, d in self._g.out_edges(paper_id, keys=True, data=True)
            if k == "MENTIONS"
        ]
        return authors, top_concepts(mentions)

    def _bump_pairs(self, rel_type: RelType, before: set[str], after: set[str]) -> None:
        """Count one more shared paper for every pair that this paper newly connects."""
        for a, b in new_pairs(before, after):
            if self._g.has_edge(a, b, key=rel_type):
                self._g.edges[a, b, rel_type]["properties"]["papers"] += 1
            else:
                self._g.add_edge(a, b, key=rel_type, properties={"papers": 1})

    # -- reads ---------------------------------------------------------------------------------
    def _node(self, node_id: str) -> Node:
        data = self._g.nodes[node_id]
        return Node(id=node_id, label=data["label"], properties=dict(data["properties"]))

    def get_nodes(self, ids: Sequence[str]) -> list[Node | None]:
        return [self._node(i) if self._g.has_node(i) else None for i in ids]

    def nodes_by_label(self, label: Label) -> list[Node]:
        ids = sorted(n for n, d in self._g.nodes(data=True) if d["label"] == label)
        return [self._node(i) for i in ids]

    def _edges_of(self, node_id: str, rel_type: str, direction: Direction) -> Iterable[Edge]:
        if direction in ("out", "both"):
            for _, other, key, data in self._g.out_edges(node_id, keys=True, data=True):
                if key == rel_type:
                    yield Edge(self._rel(node_id, key, other, data), self._node(other))
        if direction in ("in", "both"):
            for other, _, key, data in self._g.in_edges(node_id, keys=True, data=True):
                if key == rel_type:
                    yield Edge(self._rel(other, key, node_id, data), self._node(other))

    @staticmethod
    def _rel(start: str, rel_type: str, end: str, data: dict[str, Any]) -> Relationship:
        return Relationship.model_validate(
            {"type": rel_type, "start": start, "end": end, "properties": dict(data["properties"])}
        )

    def neighbors_many(
        self, ids: Sequence[str], rel_type: RelType, direction: Direction = "out"
    ) -> list[list[Edge]]:
        out: list[list[Edge]] = []
        for node_id in ids:
            if not self._g.has_node(node_id):
                out.append([])
                continue
            edges = sorted(self._edges_of(node_id, rel_type, direction), key=lambda e: e.node.id)
            out.append(edges)
        return out

    def degree_many(self, ids: Sequence[str], rel_type: RelType, direction: Direction = "out") -> list[int]:
        result: list[int] = []
        for node_id in ids:
            if not self._g.has_node(node_id):
                result.append(0)
                continue
            n = 0
            if direction in ("out", "both"):
                n += sum(1 for _, _, k in self._g.out_edges(node_id, keys=True) if k == rel_type)
            if direction in ("in", "both"):
                n += sum(1 for _, _, k in self._g.in_edges(node_id, keys=True) if k == rel_type)
            result.append(n)
        return result

    def relationships(self, rel_type: RelType) -> list[Relationship]:
        rels = [self._rel(u, k, v, d) for u, v, k, d in self._g.edges(keys=True, data=True) if k == rel_type]
        return sorted(rels, key=lambda r: (r.start, r.end))

    def search(self, text: str, limit: int = 20) -> list[SearchHit]:
        if self._index is None:
            self._index = TextIndex(self._search_docs())
        return [SearchHit(self._node(i), s) for i, s in self._index.search(text, limit)]

    def _search_docs(self) -> Iterable[tuple[str, dict[str, str]]]:
        for node_id, data in self._g.nodes(data=True):
            props = data["properties"]
            if data["label"] == "Paper":
                yield (
                    node_id,
                    {
                        "title": str(props.get("title") or ""),
                        "abstract": str(props.get("abstract") or ""),
                    },
                )
            elif data["label"] == "Concept":
                aliases = props.get("aliases") or []
                yield (
                    node_id,
                    {
                        "name": str(props.get("name") or ""),
                        "aliases": " ".join(str(a) for a in aliases) if isinstance(aliases, list) else "",
                    },
                )

    def counts(self) -> StoreCounts:
        nodes: dict[str, int] = dict.fromkeys(LABELS, 0)
        for _, label in self._g.nodes(data="label"):
            nodes[label] += 1
        rels: dict[str, int] = dict.fromkeys(REL_TYPES, 0)
        for _, _, key in self._g.edges(keys=True):
            rels[key] += 1
        return StoreCounts(nodes=dict(nodes), relationships=dict(rels))

    def export(self) -> Graph:
        nodes = [self._node(i) for i in sorted(self._g.nodes)]
        rels = sorted(
            (self._rel(u, k, v, d) for u, v, k, d in self._g.edges(keys=True, data=True)),
            key=lambda r: (r.type, r.start, r.end),
        )
        return Graph(nodes=nodes, relationships=rels)

    def ping(self) -> None:
        return None

    def clear(self) -> None:
        self._g = nx.MultiDiGraph()
        self._index = None
        self._dirty = True

    def close(self) -> None:
        self.flush()
