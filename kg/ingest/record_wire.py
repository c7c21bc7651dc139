"""Extracted records across the process boundary as plain tuples, rebuilt as the same models.

Why: the ingest's extraction workers hand each batch's records to the one writer process, the
ingest's critical path, through a pipe. Pickled as models, every node and relationship (about 70
a paper) went as a class reference and a state dict that pydantic's ``__setstate__`` unpacked:
unpickling was 7-9% of the writer's samples at 10k papers. As tuples of their fields the same
batch pickles in 0.63x the worker's time and is rebuilt with the trusted builders
(:func:`kg.core.models.trusted_node`) in 0.93x the writer's (bench/README.md, "The writer's
CPU per paper"). The property maps go as they are; a node object shared by several records of
the batch (``Pipeline._normal_node``) is sent once and shared again; a :class:`SettledRecord`
stays one.
"""

from __future__ import annotations

from collections.abc import Sequence

from kg.core.models import (
    Label,
    Node,
    PaperRecord,
    Properties,
    RelType,
    SettledRecord,
    settled_record,
    trusted_node,
    trusted_record,
    trusted_relationship,
)

NodeWire = tuple[str, Label, Properties]
RelWire = tuple[RelType, str, str, Properties]
RecordWire = tuple[bool, NodeWire, list[NodeWire], list[RelWire], bytes | None]


def pack(records: Sequence[PaperRecord]) -> list[RecordWire]:
    """The records as tuples (:func:`unpack` gives them back, equal and of the same types)."""
    memo: dict[int, NodeWire] = {}  # by the node object's identity: shared nodes stay shared

    def node(n: Node) -> NodeWire:
        wire = memo.get(id(n))
        if wire is None:
            wire = memo[id(n)] = (n.id, n.label, n.properties)
        return wire

    return [
        (
            isinstance(r, SettledRecord),
            node(r.paper),
            [node(n) for n in r.nodes],
            [(x.type, x.start, x.end, x.properties) for x in r.relationships],
            r.embedding,
        )
        for r in records
    ]


def unpack(wires: Sequence[RecordWire]) -> list[PaperRecord]:
    """The records :func:`pack` was given, built without validation (they were models)."""
    memo: dict[int, Node] = {}  # by the tuple's identity, which pickling keeps for shared ones
    out: list[PaperRecord] = []
    for settled, paper, nodes, rels, embedding in wires:
        built = []
        for wire in nodes:
            n = memo.get(id(wire))
            if n is None:
                n = memo[id(wire)] = trusted_node(*wire)
            built.append(n)
        record = trusted_record(
            trusted_node(*paper),
            built,
            [trusted_relationship(*rel) for rel in rels],
            embedding,
        )
        out.append(settled_record(record) if settled else record)
    return out
