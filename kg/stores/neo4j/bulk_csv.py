"""CSV files for ``neo4j-admin database import full``, written from merged records.

Why this shape:

- **The same graph as the transactional store.** Records are merged with the store's own
  write plan (:class:`kg.stores.write_plan.WritePlan`, which applies :func:`kg.core.merge.merge_properties`
  and the :mod:`kg.core.derived` pair rules) starting from an empty database, so a bulk load and an
  ``upsert`` of the same records give equal exports.
- **One file per property signature.** The importer types columns in the header
  (``name:string``, ``aliases:string[]``, ``year:long``); a header applies to a whole file, and an
  empty cell means "no property" while the transactional store keeps ``""`` and ``[]``. Rows are
  grouped by their exact ``(key, type)`` set, so every cell holds a value of its column's type
  and nothing is dropped or coerced.
- **Arrays** use the unit separator (U+001F) between items: paper titles, names and aliases
  contain ``;`` (the importer's default). A value holding U+001F itself is refused.
- **Empty lists** cannot be written: the importer reads an empty array cell as "no property".
  Nodes with empty-list properties also get a temporary label per set of such keys
  (``__KGFix<i>__``); after the import :func:`kg.stores.neo4j.queries.restore_empty_lists` sets
  those properties to ``[]`` and drops the label, one label scan per set. Relationships with
  empty lists (none come from the extractors today) are fixed by their ends' ids.
- **The read index** (:mod:`kg.stores.neo4j.read_index`): internal sort, search and count
  properties in the node rows, and the ``__KGKey`` nodes with their ``__KEY_OF`` relationships,
  computed with the same functions the transactional writes use.
- **Provisional concepts** still carried by one paper are ``__KGKeyphrase__`` nodes, as the
  transactional store keeps them (their own id space, no relationships).
- **Labels** come from the ``--nodes`` argument per file: ``__KGNode__``, the paperkg label and,
  for concepts, the kind label (:data:`kg.stores.neo4j.queries.KIND_LABELS`).
"""

from __future__ import annotations

import csv
import multiprocessing
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from extractors.embedding import MODEL_ID, QUANT_SCALE, from_blob
from kg.core.errors import GraphStoreError
from kg.core.models import DERIVED_REL_TYPES, PaperRecord, PropertyValue, UpsertSummary, number_type
from kg.core.provisional import concept_ids, provisional_ids
from kg.core.provisional import plan as plan_provisional
from kg.stores.neo4j import queries as q
from kg.stores.neo4j import read_queries as rq
from kg.stores.neo4j.batch_writes import db_node_properties, keyphrase_rows
from kg.stores.neo4j.pair_keys import FORMAT as PAIR_KEYS_FORMAT
from kg.stores.neo4j.read_index import desired_state
from kg.stores.neo4j.vectors import EMBEDDING_LABEL, MODELS_ID
from kg.stores.write_plan import WritePlan, check_relationships

ARRAY_DELIMITER = "\x1f"
ARRAY_DELIMITER_ARG = "U+001F"
Signature = tuple[tuple[str, str], ...]


def value_type(value: PropertyValue, where: str) -> str:
    """The importer's column type of one property value.

    >>> value_type(3, "x"), value_type(0.5, "x"), value_type(True, "x"), value_type(["a"], "x")
    ('long', 'double', 'boolean', 'string[]')
    >>> value_type([], "x")
    'string[]'
    """
    number = number_type(value)
    if number is not None:
        return number
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        kinds = {value_type(v, where) for v in value}
        if len(kinds) > 1:
            raise GraphStoreError(f"{where}: a list mixes {sorted(kinds)}; Neo4j lists hold one type")
        return f"{kinds.pop() if kinds else 'string'}[]"
    raise GraphStoreError(f"{where}: property value {value!r} has no Neo4j type")


def cell(value: PropertyValue, where: str) -> str:
    """The CSV text of one value (arrays joined by :data:`ARRAY_DELIMITER`).

    >>> cell(["a;b", "c"], "x").split(ARRAY_DELIMITER)
    ['a;b', 'c']
    >>> cell(False, "x"), cell(1e-05, "x")
    ('false', '1e-05')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ARRAY_DELIMITER.join(cell(v, where) for v in value)
    text = repr(value) if isinstance(value, float) else str(value)
    if ARRAY_DELIMITER in text:
        raise GraphStoreError(f"{where}: a value contains U+001F, the bulk import's array delimiter")
    return text


_SCALARS: dict[type, str] = {str: "string", int: "long", float: "double", bool: "boolean"}


def encode(props: dict[str, Any], where: str) -> tuple[Signature, list[str]]:
    """The row's signature and cells (:func:`cell`, in signature order), in one pass.

    The signature is the sorted ``(key, type)`` pairs of the property map: rows with one
    signature share a file.

    The loop of :func:`write_csv` runs this once per node and relationship (millions at 100k
    papers), so exact scalar types take a branch each instead of the general functions; lists
    and anything else go through :func:`value_type` and :func:`cell`, which also refuse what
    cannot be written.

    >>> encode({"b": ["x", "y"], "a": 1.5, "c": True}, "x")[0]
    (('a', 'double'), ('b', 'string[]'), ('c', 'boolean'))
    >>> encode({"b": ["x", "y"], "a": 1.5, "c": True}, "x")[1] == ["1.5", "x\x1fy", "true"]
    True
    """
    sig: list[tuple[str, str]] = []
    cells: list[str] = []
    for key in sorted(props):
        value = props[key]
        kind = _SCALARS.get(type(value))
        if kind == "string":
            if ARRAY_DELIMITER in value:
                raise GraphStoreError(f"{where}: a value contains U+001F, the bulk import's array delimiter")
            text = value
        elif kind == "long":
            text = str(value)
        elif kind == "double":
            text = repr(value)
        elif kind == "boolean":
            text = "true" if value else "false"
        elif type(value) is list and set(map(type, value)) <= {str}:  # names, aliases, evidence
            kind, text = "string[]", ARRAY_DELIMITER.join(value)
            if text.count(ARRAY_DELIMITER) > max(len(value) - 1, 0):
                raise GraphStoreError(f"{where}: a value contains U+001F, the bulk import's array delimiter")
        else:
            kind, text = value_type(value, where), cell(value, where)
        sig.append((key, kind))
        cells.append(text)
    return tuple(sig), cells


@dataclass
class MergedGraph:
    """Every node, relationship and derived pair of a set of records merged into an empty store."""

    batch: WritePlan
    summary: UpsertSummary
    papers: int
    # paper id -> quantised embedding (PaperRecord.embedding): the last record's, as upserts
    # of the same records in order would leave it
    vectors: dict[str, bytes] = field(default_factory=dict)


def merge_records(records: Iterable[PaperRecord], chunk: int = 2000) -> MergedGraph:
    """Merge ``records`` in order with the transactional store's planner, from an empty store.

    In chunks, like upsert batches, so provisional concepts (:mod:`kg.core.provisional`) are planned
    against what earlier chunks left: the same graph as ``kg ingest`` of the same records. The
    records' embeddings (when the extraction made them) are kept per paper, for
    :func:`write_csv` to write as the vector nodes the transactional store would hold.
    """
    batch = WritePlan()
    vectors: dict[str, bytes] = {}
    pending: list[PaperRecord] = []

    def flush() -> None:
        existing = {i for i in provisional_ids(pending) if i in batch.nodes}
        stored = {i: batch.keep[i] for i in concept_ids(pending) if i in batch.keep}  # earlier chunks' rows
        plan = plan_provisional(pending, existing, stored)
        check_relationships(plan.records, batch.nodes)
        batch.apply_provisional(plan)
        pending.clear()

    for record in records:
        pending.append(record)
        if record.embedding is not None:
            vectors[record.paper.id] = record.embedding
        if len(pending) >= chunk:
            flush()
    flush()
    return MergedGraph(batch=batch, summary=batch.summary, papers=batch.summary.added, vectors=vectors)


@dataclass
class _Group:
    """One CSV file being written: its header is fixed by the rows' signature."""

    path: Path
    handle: TextIO
    writer: Any  # csv writer (the typeshed type is private)
    rows: int = 0


@dataclass
class CsvSet:
    """The files written, as ``neo4j-admin`` arguments, their row counts, and the fix-ups due."""

    node_args: list[str] = field(default_factory=list)
    rel_args: list[str] = field(default_factory=list)
    nodes: int = 0
    relationships: int = 0
    # temporary label -> the empty-list keys its nodes get back after the import
    node_fixes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # relationship type -> rows [start id, end id, {key: []}]
    rel_fixes: dict[str, list[list[Any]]] = field(default_factory=dict)
    # every file written, with its data rows; and those where a value spans lines
    files: list[tuple[Path, int]] = field(default_factory=list)
    multiline: list[Path] = field(default_factory=list)

    def admin_args(self) -> list[str]:
        return [*multiline_args(self.multiline), *self.node_args, *self.rel_args]

    def joined(self, other: CsvSet) -> CsvSet:
        """This set and ``other``'s files (written apart: no file, label or fix is in both)."""
        return CsvSet(
            node_args=self.node_args + other.node_args,
            rel_args=self.rel_args + other.rel_args,
            nodes=self.nodes + other.nodes,
            relationships=self.relationships + other.relationships,
            node_fixes={**self.node_fixes, **other.node_fixes},
            rel_fixes={**self.rel_fixes, **other.rel_fixes},
            files=self.files + other.files,
            multiline=self.multiline + other.multiline,
        )


def multiline_args(paths: Sequence[Path]) -> list[str]:
    """The importer's multiline option: off, unless some files hold a value with a line break.

    With ``--multiline-fields=true`` the importer cannot split a file between its parsing
    threads (a line end may be inside a quoted value), and that costs a quarter of its time
    here; its ``v2`` form names the files that need it instead. Values with line breaks are
    rare (readers collapse whitespace in titles and abstracts), but nothing forbids them.

    >>> multiline_args([])
    ['--multiline-fields=false']
    >>> multiline_args([Path("a.csv"), Path("b.csv")])
    ['--multiline-fields-format=v2', '--multiline-fields=a.csv,b.csv']
    """
    if not paths:
        return ["--multiline-fields=false"]
    return ["--multiline-fields-format=v2", f"--multiline-fields={','.join(str(p) for p in paths)}"]


def spans_lines(path: Path, rows: int, block: int = 1 << 24) -> bool:
    """Does the CSV at ``path`` (a header and ``rows`` rows, one line end each) hold a line
    break inside a value? Counted in the written bytes, so the row loop pays nothing."""
    breaks = 0
    with path.open("rb") as handle:
        while data := handle.read(block):
            if b"\r" in data:
                return True
            breaks += data.count(b"\n")
    return breaks != rows + 1


class _Writer:
    """Opens one CSV per (labels or type, signature) on first use; closes them all at the end."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.groups: dict[tuple[str, Signature], _Group] = {}

    def group(self, kind: str, name: str, sig: Signature, id_columns: list[str]) -> _Group:
        key = (name, sig)
        g = self.groups.get(key)
        if g is None:
            path = self.directory / f"{kind}-{len(self.groups):04d}.csv"
            handle = path.open("w", encoding="utf-8", newline="")
            writer = csv.writer(handle, quoting=csv.QUOTE_ALL, lineterminator="\n")
            writer.writerow([*id_columns, *(f"{k}:{t}" for k, t in sig)])
            g = self.groups[key] = _Group(path, handle, writer)
        return g

    def close(self) -> None:
        for g in self.groups.values():
            g.handle.close()


def _node_labels(label: str, props: dict[str, Any], fix: str | None) -> str:
    names = [q.NODE_LABEL, q.label(label)]
    extra = q.kind_label(props.get("kind")) if label == "Concept" else None
    if extra:
        names.append(extra)
    if fix:
        names.append(fix)
    return ":".join(names)


def _split_empty(props: dict[str, Any]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """``props`` without its empty lists, and their keys (sorted)."""
    if [] not in props.values():  # the common case, tested in C
        return props, ()
    empty = tuple(sorted(k for k, v in props.items() if v == []))
    if not empty:
        return props, empty
    return {k: v for k, v in props.items() if k not in empty}, empty


def _write_file(path: Path, header: list[str], rows: Iterable[list[str]], out: CsvSet) -> Path:
    """One import CSV with a fixed header (every cell quoted, as the importer reads them)."""
    written = 0

    def counted() -> Iterator[list[str]]:
        nonlocal written
        for row in rows:
            written += 1
            yield row

    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, quoting=csv.QUOTE_ALL, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(counted())
    out.files.append((path, written))
    return path


def _paper_counts(batch: WritePlan) -> dict[str, int]:
    """``_papers`` of the read index: papers about a concept (MENTIONS not ``about: false``),
    AUTHORED out-degree of an author."""
    counts: dict[str, int] = {}
    for (start, rtype, end), props in batch.rels.items():
        if rtype == "MENTIONS" and props.get("about") is not False:
            counts[end] = counts.get(end, 0) + 1
        elif rtype == "AUTHORED":
            counts[start] = counts.get(start, 0) + 1
    return counts


def _write_keys(
    directory: Path, keys: dict[str, str | None], key_of: list[tuple[str, str, int]], out: CsvSet
) -> None:
    """The read index's key nodes (with and without ``rkey``: an empty cell would be ``""``)
    and their ``__KEY_OF`` relationships."""
    with_r = _write_file(
        directory / "keys-r.csv",
        ["key:ID(paperkg_key)", "rkey"],
        ([k, r] for k, r in keys.items() if r is not None),
        out,
    )
    without_r = _write_file(
        directory / "keys.csv", ["key:ID(paperkg_key)"], ([k] for k, r in keys.items() if r is None), out
    )
    of = _write_file(
        directory / "key-of.csv",
        [":START_ID(paperkg_key)", ":END_ID", "rank:long"],
        ([key, node_id, str(rank)] for key, node_id, rank in key_of),
        out,
    )
    out.node_args += [f"--nodes={rq.KEY_LABEL}={with_r}", f"--nodes={rq.KEY_LABEL}={without_r}"]
    out.rel_args.append(f"--relationships={rq.KEY_OF}={of}")
    out.nodes += len(keys)
    out.relationships += len(key_of)


def write_csv(graph: MergedGraph, directory: Path, version: int, jobs: int = 1) -> CsvSet:
    """Write ``graph`` (and the store version node) as import CSV files under ``directory``.

    With ``jobs`` > 1 the relationship files are written by a forked process while this one
    writes the node files: the two halves share nothing but the merged graph, which the fork
    inherits without a copy, and each is Python work on one core (about half the time each).
    """
    global _FORKED
    directory.mkdir(parents=True, exist_ok=True)
    if jobs <= 1:
        nodes = _write_nodes(graph.batch, directory, version)
        _write_vectors(graph.vectors, directory, nodes)
        return nodes.joined(_write_rels(graph.batch, directory))
    _FORKED = graph.batch
    try:
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
            rels = pool.submit(_forked_rels, directory)
            nodes = _write_nodes(graph.batch, directory, version)
            _write_vectors(graph.vectors, directory, nodes)
            return nodes.joined(rels.result())
    finally:
        _FORKED = None


# The text of each int8 component k as the float the transactional store writes
# (extractors.embedding.dequantize: k / 127), indexed by the byte's unsigned value and formatted
# once: 384 table look-ups per paper.
_COMPONENTS = [repr(float(u if u < 128 else u - 256) / QUANT_SCALE) for u in range(256)]


def _write_vectors(vectors: dict[str, bytes], directory: Path, out: CsvSet) -> None:
    """The papers' embeddings as ``__KGEmbedding__`` nodes ``{paper, vector, model}`` (see
    :mod:`kg.stores.neo4j.vectors`): the same property values ``vectors.put`` writes, so the
    vector index, populated with the other indexes after the import, holds what an upsert
    would. The node ids of this file are not stored (no ``id`` property)."""
    if not vectors:
        return
    table = _COMPONENTS
    path = _write_file(
        directory / "vectors.csv",
        [f":ID({EMBEDDING_LABEL})", "paper", "vector:double[]", "model"],
        (
            [
                paper,
                paper,
                ARRAY_DELIMITER.join([table[u] for u in from_blob(blob).view(np.uint8).tolist()]),
                MODEL_ID,
            ]
            for paper, blob in vectors.items()
        ),
        out,
    )
    out.node_args.append(f"--nodes={EMBEDDING_LABEL}={path}")
    out.nodes += len(vectors)


_FORKED: WritePlan | None = None  # the graph a forked writer inherits (set just before the fork)


def _forked_rels(directory: Path) -> CsvSet:
    assert _FORKED is not None, "the relationship writer runs in a process forked by write_csv"
    return _write_rels(_FORKED, directory)


def _write_nodes(batch: WritePlan, directory: Path, version: int) -> CsvSet:
    """The node files, the read index's key nodes with their ``__KEY_OF`` relationships, and
    the keyphrase rows."""
    out = CsvSet()
    nodes = _Writer(directory)
    fix_labels: dict[tuple[str, ...], str] = {}
    papers = _paper_counts(batch)
    keys: dict[str, str | None] = {}  # key -> rkey
    key_of: list[tuple[str, str, int]] = []  # (key, node id, rank)
    try:
        for node_id, label in batch.labels.items():
            props = db_node_properties(node_id, label, batch.nodes[node_id])
            props.pop("id")
            # The read index (kg.stores.neo4j.read_index), as the transactional writes keep it.
            state, key_rows = desired_state(node_id, (label,), props, papers.get(node_id, 0))
            props.update(state)
            for key, rank, rkey in key_rows or ():
                keys.setdefault(key, rkey)
                key_of.append((key, node_id, rank))
            props, empty = _split_empty(props)
            fix = None
            if empty:
                fix = fix_labels.get(empty)
                if fix is None:
                    fix = fix_labels[empty] = q.fix_label(len(fix_labels))
                    out.node_fixes[fix] = empty
            where = f"node {node_id}"
            labels = _node_labels(label, props, fix)
            sig, cells = encode(props, where)
            g = nodes.group("nodes", labels, sig, ["id:ID"])
            g.writer.writerow([node_id, *cells])
            g.rows += 1
        for (labels, _sig), g in nodes.groups.items():
            out.node_args.append(f"--nodes={labels}={g.path}")
            out.nodes += g.rows
    finally:
        nodes.close()
    meta = _write_file(
        directory / "meta.csv",
        ["id:ID(paperkg_meta)", "value:long"],
        [
            [q.VERSION_ID, str(version)],
            [q.PAIR_KEYS_ID, str(PAIR_KEYS_FORMAT)],  # every pair below has its key
            [q.KEYPHRASE_KEYS_ID, str(PAIR_KEYS_FORMAT)],  # every keyphrase row too
            [MODELS_ID, "1"],  # every vector below names its model
        ],
        out,
    )
    out.node_args.append(f"--nodes={q.META_LABEL}={meta}")
    _write_keys(directory, keys, key_of, out)
    phrase_rows = keyphrase_rows(batch)
    if phrase_rows:
        phrases = _write_file(
            directory / "keyphrases.csv",
            ["id:ID(paperkg_keyphrase)", "concept", "paper", "node", "rel", "key", "about:boolean"],
            (
                [
                    q.keyphrase_id(r.concept, r.paper),
                    r.concept,
                    r.paper,
                    r.node,
                    r.rel,
                    r.key,
                    str(r.about).lower(),
                ]
                for r in phrase_rows
            ),
            out,
        )
        out.node_args.append(f"--nodes={q.KEYPHRASE_LABEL}={phrases}")
    out.files += [(g.path, g.rows) for g in nodes.groups.values()]
    out.multiline = [path for path, rows in out.files if spans_lines(path, rows)]
    return out


def _write_rels(batch: WritePlan, directory: Path) -> CsvSet:
    """The relationship files: merged relationships, then the derived pairs."""
    out = CsvSet()
    rels = _Writer(directory)
    try:
        for (start, rtype, end), all_props in batch.rels.items():
            props, empty = _split_empty(all_props)
            if empty:
                out.rel_fixes.setdefault(rtype, []).append([start, end, dict.fromkeys(empty, [])])
            sig, cells = encode(props, f"relationship {rtype} {start}->{end}")
            g = rels.group("rels", rtype, sig, [":START_ID", ":END_ID"])
            g.writer.writerow([start, end, *cells])
            g.rows += 1
        _write_pairs(batch, rels)
        for (rtype, _sig), g in rels.groups.items():
            out.rel_args.append(f"--relationships={q.rel_type(rtype)}={g.path}")
            out.relationships += g.rows
    finally:
        rels.close()
    out.files += [(g.path, g.rows) for g in rels.groups.values()]
    out.multiline = [path for path, rows in out.files if spans_lines(path, rows)]
    return out


def _write_pairs(batch: WritePlan, rels: _Writer) -> None:
    """The derived pairs (a third or more of all rows): one file per type, written in C."""
    pair_sig: Signature = ((q.PAIR_KEY, "long"), ("papers", "long"))
    pair_key = q.pair_key
    for rtype in DERIVED_REL_TYPES:
        pairs = [(a, b, n) for (a, t, b), n in batch.pair_deltas.items() if t == rtype and n > 0]
        if pairs:
            g = rels.group("rels", rtype, pair_sig, [":START_ID", ":END_ID"])
            g.writer.writerows([a, b, str(pair_key(a, b)), str(n)] for a, b, n in pairs)
            g.rows += len(pairs)


# Options every import uses (see the module docstring for why).
IMPORT_OPTIONS: tuple[str, ...] = (
    "--overwrite-destination=true",
    f"--array-delimiter={ARRAY_DELIMITER_ARG}",
    "--ignore-empty-strings=false",
    "--id-type=string",
    "--bad-tolerance=0",
    "--skip-bad-relationships=false",
    "--skip-duplicate-nodes=false",
)
