"""Typed payloads shared by readers, extractors, stores and the API.

Stores take and return only these models, so the two backends stay interchangeable and the
contract suite can compare them field by field.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal, TypeAlias, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, Field

# A property value that both networkx (pickled) and Neo4j (no nested maps) can hold.
PropertyValue: TypeAlias = str | int | float | bool | None | list[str] | list[int] | list[float]
Properties: TypeAlias = dict[str, PropertyValue]


def number_type(value: PropertyValue) -> str | None:
    """The type name Neo4j's importer and GraphML both give a bool, int or float value
    (``boolean``, ``long``, ``double``); ``None`` for anything else. A bool is checked first:
    it is an int to Python but not to either format.

    >>> number_type(True), number_type(3), number_type(0.5), number_type("x")
    ('boolean', 'long', 'double', None)
    """
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "long"
    if isinstance(value, float):
        return "double"
    return None


Label = Literal["Paper", "Author", "Venue", "Topic", "Concept", "Institution"]
RelType = Literal[
    "AUTHORED",
    "PUBLISHED_IN",
    "HAS_TOPIC",
    "SUBTOPIC_OF",
    "MENTIONS",
    "INTRODUCES",
    "BROADER",
    "COAUTHOR",
    "CO_OCCURS",
    "AFFILIATED_WITH",
]
ConceptKind = Literal["CONCEPT", "METHOD", "TASK", "DATASET", "MODEL", "METRIC"]

# The same names as tuples, for iteration and allow-lists (one source: the Literal types).
LABELS: tuple[Label, ...] = get_args(Label)
REL_TYPES: tuple[RelType, ...] = get_args(RelType)
# Relationships that stores derive from the others; never part of a PaperRecord.
DERIVED_REL_TYPES: tuple[RelType, ...] = ("COAUTHOR", "CO_OCCURS")
CONCEPT_KINDS: tuple[ConceptKind, ...] = get_args(ConceptKind)


class Node(BaseModel):
    """A graph node: deterministic id, one label, flat properties (role: graph payload)."""

    model_config = ConfigDict(extra="forbid")

    id: str
    label: Label
    properties: Properties = Field(default_factory=dict)


class Relationship(BaseModel):
    """A directed, typed relationship between two node ids (role: graph payload)."""

    model_config = ConfigDict(extra="forbid")

    type: RelType
    start: str
    end: str
    properties: Properties = Field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str, str]:
        """Identity of a relationship: at most one of each type between two nodes."""
        return (self.start, self.type, self.end)


# Every field of a trusted model is set; one set per class, shared by all its trusted instances.
# Why: a fresh set per node and relationship (about 40 per paper) was an eighth of the objects
# a record holds, and each one is allocated and then walked by the collector after every batch.
# Sharing is safe because pydantic only ever adds field names to it (assignment), and every name
# is in it already; ``model_copy`` copies it.
_NODE_FIELDS: set[str] = {"id", "label", "properties"}
_RELATIONSHIP_FIELDS: set[str] = {"type", "start", "end", "properties"}
_RECORD_FIELDS: set[str] = {"paper", "nodes", "relationships", "embedding"}
M = TypeVar("M", bound=BaseModel)


def trusted_node(node_id: str, label: Label, properties: Properties) -> Node:
    """A :class:`Node` built without validation, from values that are already well typed.

    Why: extraction emits some 30 nodes and 40 relationships per paper in well under a
    millisecond, and pydantic validation of each (even ``model_construct``) would take a large
    share of it. Only for callers whose values come from validated models or typed code; the
    result equals the validated model (``tests/unit/test_concepts_pipeline.py``).
    """
    return _trusted(Node, {"id": node_id, "label": label, "properties": properties}, _NODE_FIELDS)


def trusted_relationship(rel_type: RelType, start: str, end: str, properties: Properties) -> Relationship:
    """A :class:`Relationship` built without validation (see :func:`trusted_node`)."""
    values = {"type": rel_type, "start": start, "end": end, "properties": properties}
    return _trusted(Relationship, values, _RELATIONSHIP_FIELDS)


class Graph(BaseModel):
    """A set of nodes and relationships, e.g. a whole export (role: graph payload)."""

    model_config = ConfigDict(extra="forbid")

    nodes: list[Node] = Field(default_factory=list)
    relationships: list[Relationship] = Field(default_factory=list)


class PaperRecord(BaseModel):
    """Everything extracted from one paper, ready for one idempotent store upsert."""

    model_config = ConfigDict(extra="forbid")

    paper: Node
    nodes: list[Node] = Field(default_factory=list)
    relationships: list[Relationship] = Field(default_factory=list)
    # The paper's title+abstract embedding, quantised (``extractors.embedding.to_blob``), or None
    # when not embedded (``kg ingest --no-embed``). Not a property: stores keep it beside the
    # paper (a vector column / index), and it changes nothing a re-ingest compares.
    embedding: bytes | None = None


class SettledRecord(PaperRecord):
    """A :class:`PaperRecord` the headline rule has been applied to (:func:`kg.core.provisional.settle`).

    Why a type: the rule depends on the record alone, so ``kg ingest`` applies it in the
    extraction workers, and the one writer's plan (:func:`kg.core.provisional.plan`) skips it
    for records of this type instead of checking every provisional concept again (bench/README.md,
    "The writer's CPU per paper"). Same fields, same JSON. Code that rebuilds a record builds a
    plain ``PaperRecord``, which the plan checks again (the rule is idempotent), so the type
    never vouches for a record changed after it was settled.
    """


def _slot_setter(name: str) -> Callable[[object, object], None]:
    """The setter ``object.__setattr__(obj, name, value)`` finds for a pydantic model ``obj``.

    Why: calling the descriptor's setter directly skips the lookup by name through the class
    hierarchy; the trusted builders below set four attributes on each of some 40 models per
    paper, and this halves their cost. Looked up on each class of ``_TRUSTED``, which must agree.
    """
    found = {next(c.__dict__[name] for c in m.__mro__ if name in c.__dict__) for m in _TRUSTED}
    if len(found) != 1:
        raise TypeError(f"models disagree on {name}")
    setter: Callable[[object, object], None] = found.pop().__set__
    return setter


# A field added to a model must join its shared set: otherwise assigning it would add its name to
# the set of every trusted instance at once.
for _model, _fields in (
    (Node, _NODE_FIELDS),
    (Relationship, _RELATIONSHIP_FIELDS),
    (PaperRecord, _RECORD_FIELDS),
):
    if _fields != set(_model.model_fields):
        raise TypeError(f"{_model.__name__}: trusted field set {_fields} is out of date")
_TRUSTED = (Node, Relationship, PaperRecord)
_new = BaseModel.__new__
_set_dict = _slot_setter("__dict__")
_set_fields = _slot_setter("__pydantic_fields_set__")
_set_extra = _slot_setter("__pydantic_extra__")
_set_private = _slot_setter("__pydantic_private__")


def _trusted(model: type[M], values: Mapping[str, object], fields: set[str]) -> M:
    """An instance of ``model`` holding ``values``, as ``model_construct`` leaves one, without
    validation (the slot setters above; ``fields`` is the class's shared fields set)."""
    obj = _new(model)
    _set_dict(obj, values)
    _set_fields(obj, fields)
    _set_extra(obj, None)
    _set_private(obj, None)
    return obj


def trusted_record(
    paper: Node, nodes: list[Node], relationships: list[Relationship], embedding: bytes | None = None
) -> PaperRecord:
    """A :class:`PaperRecord` built without validation, from models and lists the caller owns.

    Validation would only check that each item is a ``Node``/``Relationship`` and copy both
    lists; the pipeline builds them from such models and hands over new lists.
    """
    values = {"paper": paper, "nodes": nodes, "relationships": relationships, "embedding": embedding}
    return _trusted(PaperRecord, values, _RECORD_FIELDS)


def settled_record(record: PaperRecord) -> SettledRecord:
    """``record``'s values (the same objects) as a :class:`SettledRecord`: only
    :func:`kg.core.provisional.settle` should call this, on a record it has settled."""
    values = {
        "paper": record.paper,
        "nodes": record.nodes,
        "relationships": record.relationships,
        "embedding": record.embedding,
    }
    return _trusted(SettledRecord, values, _RECORD_FIELDS)


@dataclass(slots=True)
class RawPaper:
    """One paper as a reader found it, before extraction (role: reader output).

    ``file``/``line`` are the provenance every error message and the stored paper refer to.
    """

    file: str
    line: int
    abstract: str = ""
    title: str | None = None
    authors: list[str] = field(default_factory=list)
    authors_truncated: bool = False
    venue: str | None = None
    year: int | None = None
    topic: str | None = None
    keywords: list[str] = field(default_factory=list)
    external_id: str | None = None
    url: str | None = None
    # External ids per author, aligned with ``authors`` (``("openreview:~Ada_L1", "orcid:…")``;
    # an empty tuple: no id, the author is keyed by name). Shorter than ``authors`` = no ids.
    author_keys: list[tuple[str, ...]] = field(default_factory=list)
    # Folded affiliations per author, aligned like ``author_keys`` (paperlists ``aff``); evidence
    # for author resolution (kg.authors.resolution), not stored as ids.
    author_affiliations: list[tuple[str, ...]] = field(default_factory=list)
    # Institution entries per author, aligned like ``author_keys`` (kg.authors.institutions.slot_entries:
    # the names as printed, ``"Name <domain>"`` when paperlists gives ``aff_domain``).
    author_institutions: list[tuple[str, ...]] = field(default_factory=list)
    track: str | None = None  # paperlists ``track`` ("main", "Datasets and Benchmarks", …)
    status: str | None = None  # paperlists ``status`` ("Poster", "Oral", "Reject", …)
    # Further topic paths beside ``topic``, e.g. IJCAI taxonomy keywords.
    topics: list[list[str]] = field(default_factory=list)

    @property
    def source(self) -> str:
        """``file:line``: where this paper came from."""
        return f"{self.file}:{self.line}"


class StoreCounts(BaseModel):
    """Node counts per label and relationship counts per type (``kg stats --json``)."""

    model_config = ConfigDict(extra="forbid")

    nodes: dict[str, int]
    relationships: dict[str, int]

    @classmethod
    def tally(cls, rows: Iterable[tuple[str, str, int]]) -> StoreCounts:
        """The counts of ``(kind, name, n)`` rows, kind ``node`` or ``rel``, as both stores keep
        them: every label and type of the model listed (0 when none is stored), so two stores'
        counts compare key for key; names outside the model (a store's own bookkeeping) ignored.
        """
        nodes: dict[str, int] = dict.fromkeys(LABELS, 0)
        rels: dict[str, int] = dict.fromkeys(REL_TYPES, 0)
        for kind, name, n in rows:
            counted = nodes if kind == "node" else rels if kind == "rel" else {}
            if name in counted:
                counted[name] = int(n)
        return cls(nodes=nodes, relationships=rels)


class UpsertSummary(BaseModel):
    """What one upsert batch did to the papers it was given."""

    model_config = ConfigDict(extra="forbid")

    added: int = 0
    updated: int = 0
    unchanged: int = 0

    def __iadd__(self, other: UpsertSummary) -> UpsertSummary:
        self.added += other.added
        self.updated += other.updated
        self.unchanged += other.unchanged
        return self
