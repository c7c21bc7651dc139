"""Institutions: ``(Author)-[:AFFILIATED_WITH {years}]->(Institution {name, domain, aliases})``.

Where they come from: paperlists listings give each author slot an ``aff`` (several institutions
joined by ``+``) and sometimes an ``aff_domain``. The reader keeps them per slot as *entries*
(``"Carnegie Mellon University"`` or ``"Carnegie Mellon University <cmu.edu>"``), and the
``kg.authors.v1`` extractor stores them on the slot's ``AUTHORED`` edge (``institutions``).

Why derived after the writes and not written by each record: an affiliation's ``years`` and an
institution's displayed name (its most frequent variant) depend on every paper that names it,
and author resolution (:mod:`kg.authors.ingest`) can move a stored slot to another Author. So the
institution graph is a function of the stored ``AUTHORED`` edges: :func:`build` computes it
from them, and :func:`sync` replaces the stored one when it differs. The result depends only on
what is stored (any file order, re-ingest, batching), and an affiliation always belongs to the
Author its slot resolved to.

Merging variants: two names are one institution when their folded forms are equal
(:func:`name_key`) or they share a domain. The id is ``institution:<domain>`` (the smallest of
the merged domains) when one is known, else ``institution:<folded name>``.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar, overload

from kg.core.ids import fold
from kg.core.models import Node, PaperRecord, Properties, Relationship
from kg.stores.protocol import GraphStore

PREFIX = "institution:"
# The AUTHORED edge property holding a slot's institution entries.
SLOT_PROPERTY = "institutions"
_ENTRY = re.compile(r"^(?P<name>.*\S)\s+<(?P<domain>[^<>\s]+)>$")
_PUNCT = re.compile(r"[^0-9a-z]+")
_DOMAIN = re.compile(r"^[a-z0-9-]+(\.[a-z0-9-]+)+$")
MAX_NAME = 300


def name_key(name: str) -> str:
    """The comparison form of an institution name: folded, punctuation collapsed.

    >>> name_key("University of California, Berkeley") == name_key("university of california berkeley")
    True
    """
    return _PUNCT.sub(" ", fold(name)).strip()


def clean_domain(value: str) -> str | None:
    """A lower-cased domain (``cmu.edu``), or ``None`` when ``value`` is not one.

    >>> clean_domain(" CMU.edu "), clean_domain("n/a")
    ('cmu.edu', None)
    """
    v = value.strip().lower().removeprefix("www.")
    return v if len(v) <= 100 and _DOMAIN.match(v) else None


def slot_entries(aff: str, domain: str = "") -> tuple[str, ...]:
    """A slot's institution entries from its ``aff`` and ``aff_domain`` texts.

    ``aff`` joins a person's institutions with ``+``; ``aff_domain`` is paired with them part by
    part when it has as many parts, otherwise ignored (a domain on the wrong institution would
    merge two institutions).

    >>> slot_entries("Carnegie Mellon University + Google", "cmu.edu+google.com")
    ('Carnegie Mellon University <cmu.edu>', 'Google <google.com>')
    >>> slot_entries("MIT", "")
    ('MIT',)
    >>> slot_entries("  ", "x.org"), slot_entries("Lab <b>", "")
    ((), ('Lab (b)',))
    """
    # angle brackets would read as a domain when the entry is parsed back (parse_entry)
    names = [" ".join(p.replace("<", "(").replace(">", ")").split()) for p in aff.split("+")]
    domains = [d.strip() for d in domain.split("+")] if domain.strip() else []
    out: list[str] = []
    for i, name in enumerate(names):
        if len(name_key(name)) < 2 or len(name) > MAX_NAME:
            continue
        d = clean_domain(domains[i]) if len(domains) == len(names) else None
        out.append(f"{name} <{d}>" if d else name)
    return tuple(dict.fromkeys(out))


def parse_entry(entry: str) -> tuple[str, str | None]:
    """``(name, domain)`` of a stored entry.

    >>> parse_entry("Carnegie Mellon University <cmu.edu>"), parse_entry("MIT")
    (('Carnegie Mellon University', 'cmu.edu'), ('MIT', None))
    """
    m = _ENTRY.match(entry)
    return (m.group("name"), m.group("domain")) if m else (entry, None)


@dataclass(frozen=True)
class AffiliationSlot:
    """One stored ``AUTHORED`` edge that names institutions: who, which paper, when, where."""

    author: str
    paper: str
    year: int | None
    entries: tuple[str, ...]


# One institution entry of one slot: (name, domain, name key, author, year, paper).
_Use = tuple[str, str | None, str, str, int | None, str]


class _Union:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def join(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def build(slots: Iterable[AffiliationSlot]) -> tuple[list[Node], list[Relationship]]:
    """The Institution nodes and AFFILIATED_WITH relationships the slots give, sorted by id.

    Each relationship holds the ``years`` and the ``papers`` (ids) of the slots that gave it:
    the papers are what ``institution.papers`` and ``papers(where: {institution})`` list.

    A pure function of the set of slots: nothing depends on their order.

    >>> nodes, rels = build([
    ...     AffiliationSlot("author:a", "paper:1", 2020, ("Carnegie Mellon University <cmu.edu>",)),
    ...     AffiliationSlot("author:a", "paper:2", 2018, ("CMU <cmu.edu>",)),
    ...     AffiliationSlot("author:b", "paper:3", 2019, ("Carnegie Mellon University",)),
    ... ])
    >>> [(n.id, n.properties["name"], n.properties["aliases"]) for n in nodes]
    [('institution:cmu.edu', 'Carnegie Mellon University', ['CMU'])]
    >>> [(r.start, r.properties["years"]) for r in rels]
    [('author:a', [2018, 2020]), ('author:b', [2019])]
    """
    nodes, rels = derive(slots)
    return (
        [Node(id=iid, label="Institution", properties=props) for iid, props in nodes],
        [Relationship(type="AFFILIATED_WITH", start=a, end=i, properties=props) for a, i, props in rels],
    )


# An institution graph in compact form: what :func:`derive` gives and :func:`graph_digest` reads.
InstitutionRow = tuple[str, Properties]  # (institution id, properties)
AffiliationRow = tuple[str, str, Properties]  # (author id, institution id, properties)


def derive(slots: Iterable[AffiliationSlot]) -> tuple[list[InstitutionRow], list[AffiliationRow]]:
    """:func:`build`'s graph as plain tuples, sorted by id: at 100k papers (30k institutions,
    131k affiliations) pydantic models for all of it cost about 100 MB that :func:`sync` needs
    only when it writes."""
    uses: list[_Use] = []
    seen: set[tuple[str, str, str]] = set()
    union = _Union()
    # Each distinct entry parsed and joined once: its name and key strings are then shared by
    # every use (200k uses of ~60k entries at 100k papers), which saves memory and time.
    parsed: dict[str, tuple[str, str | None, str]] = {}
    for s in slots:
        for entry in s.entries:
            known = parsed.get(entry)
            if known is None:
                name, domain = parse_entry(entry)
                known = parsed[entry] = (name, domain, name_key(name))
                if known[2]:
                    union.find("n:" + known[2])
                    if domain:
                        union.join("n:" + known[2], "d:" + domain)
            name, domain, key = known
            if not key or (s.author, s.paper, entry) in seen:
                continue
            seen.add((s.author, s.paper, entry))
            uses.append((name, domain, key, s.author, s.year, s.paper))
    del parsed, seen
    members: dict[str, list[_Use]] = defaultdict(list)
    for use in uses:
        members[union.find("n:" + use[2])].append(use)
    nodes: list[InstitutionRow] = []
    rels: list[AffiliationRow] = []
    for group in members.values():
        domains = sorted({use[1] for use in group if use[1]})
        keys = sorted({use[2] for use in group})
        iid = PREFIX + (domains[0] if domains else keys[0])
        variants = Counter(use[0] for use in group)
        name = min(variants, key=lambda v: (-variants[v], v))
        props: Properties = {"name": name, "aliases": sorted(v for v in variants if v != name)}
        if domains:
            props["domain"] = domains[0]
        nodes.append((iid, props))
        years: dict[str, set[int]] = defaultdict(set)
        papers: dict[str, set[str]] = defaultdict(set)
        for _, _, _, author, year, paper in group:
            papers[author].add(paper)
            found = years[author]
            if year is not None:
                found.add(year)
        for author in sorted(years):
            props = {"years": sorted(years[author]), "papers": sorted(papers[author])}
            rels.append((author, iid, props))
    nodes.sort(key=lambda n: n[0])
    rels.sort(key=lambda r: (r[0], r[1]))
    return _merge_same_ids(nodes, rels)


def _merge_same_ids(
    nodes: list[InstitutionRow], rels: list[AffiliationRow]
) -> tuple[list[InstitutionRow], list[AffiliationRow]]:
    """Guard: two groups cannot share an id (a domain joins its names; a name key is in one
    group), but should it happen, keep the first so the stores never see a duplicate."""
    out: list[InstitutionRow] = []
    ids: set[str] = set()
    for n in nodes:
        if n[0] not in ids:
            ids.add(n[0])
            out.append(n)
    keys: set[tuple[str, str]] = set()
    kept: list[AffiliationRow] = []
    for r in rels:
        if (r[0], r[1]) not in keys:
            keys.add((r[0], r[1]))
            kept.append(r)
    return out, kept


def slots_from_rows(rows: Iterable[tuple[str, str, object, object]]) -> list[AffiliationSlot]:
    """:class:`AffiliationSlot` from ``(author, paper, year, institutions)`` store rows."""
    return list(iter_slots(rows))


def iter_slots(rows: Iterable[tuple[str, str, object, object]]) -> Iterator[AffiliationSlot]:
    """:func:`slots_from_rows` one at a time (:func:`sync` never holds them all: 151k slots at 100k)."""
    for author, paper, year, entries in rows:
        if not isinstance(entries, list) or not entries:
            continue
        y = int(year) if isinstance(year, int | float) and not isinstance(year, bool) else None
        yield AffiliationSlot(author, paper, y, tuple(str(e) for e in entries))


_MOD = 1 << 256


def _item_hash(item: Sequence[object]) -> int:
    text = json.dumps(item, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return int.from_bytes(hashlib.sha256(text.encode()).digest(), "big")


def graph_digest(
    nodes: Iterable[tuple[str, Mapping[str, object]]],
    rels: Iterable[tuple[str, str, Mapping[str, object]]],
) -> str:
    """A fingerprint of an institution graph: equal exactly when the graphs are (but for a
    SHA-256 collision), whatever order the items come in.

    Why: :func:`sync` compares the derived graph with the stored one on every ingest. Both sides
    stream through this (the stored one from a cursor, :meth:`GraphStore.institutions_digest`), so
    neither needs the whole graph as Python objects; at 100k papers that was ~600 MB of RSS. It
    is the sum of each item's SHA-256 (modulo 2**256), so no side has to sort, and Neo4j's
    string order (UTF-16) need not match Python's.

    >>> x = [("institution:x", {"name": "X"})]
    >>> a = graph_digest(x, [("author:a", "institution:x", {"years": [2020]})])
    >>> b = graph_digest(x, [("author:a", "institution:x", {"years": [2021]})])
    >>> a == b, a.split(":")[:2]
    (False, ['1', '1'])
    """
    total, n_nodes, n_rels = 0, 0, 0
    for iid, props in nodes:
        total += _item_hash(["n", iid, props])
        n_nodes += 1
    for start, end, props in rels:
        total += _item_hash(["r", start, end, props])
        n_rels += 1
    return f"{n_nodes}:{n_rels}:{total % _MOD:064x}"


def _node(row: InstitutionRow) -> Node:
    return Node(id=row[0], label="Institution", properties=row[1])


def _relationship(row: AffiliationRow) -> Relationship:
    return Relationship(type="AFFILIATED_WITH", start=row[0], end=row[1], properties=row[2])


_R = TypeVar("_R")
_M = TypeVar("_M")


class _Models(Sequence[_M], Generic[_R, _M]):
    """Compact rows seen as models, each made when read: the store's write goes through them
    once, so the whole graph never exists as models at once (about 80 MB at 100k papers)."""

    def __init__(self, rows: Sequence[_R], model: Callable[[_R], _M]) -> None:
        self._rows, self._model = rows, model

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, index: int) -> _M: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[_M]: ...
    def __getitem__(self, index: int | slice) -> _M | Sequence[_M]:
        if isinstance(index, slice):
            return _Models(self._rows[index], self._model)
        return self._model(self._rows[index])

    def __iter__(self) -> Iterator[_M]:
        return map(self._model, self._rows)


@dataclass(frozen=True)
class Synced:
    """What :func:`sync` found: the institution graph's size, whether it was rewritten, its cost,
    and whether it was derived at all (``derived`` False: nothing written since it last was)."""

    institutions: int
    affiliations: int
    changed: bool
    seconds: float
    derived: bool = True

    def line(self) -> str:
        """The ``kg ingest`` summary line."""
        state = "rewritten" if self.changed else "unchanged"
        if not self.derived:
            state = "unchanged: this ingest wrote no affiliation"
        return (
            f"  institutions: {self.institutions:,} institution(s), {self.affiliations:,} affiliation(s) "
            f"({state}) in {self.seconds:.1f} s"
        )


def carries_affiliations(records: Iterable[PaperRecord]) -> bool:
    """Whether any of ``records`` has an ``AUTHORED`` edge with institution entries."""
    return any(
        r.type == "AUTHORED" and r.properties.get(SLOT_PROPERTY) for rec in records for r in rec.relationships
    )


def sync(store: GraphStore, *, untouched_since: int | None = None) -> Synced:
    """Rebuild the store's institution graph from its ``AUTHORED`` edges; written only when it
    differs from the stored one (a re-ingest leaves the store version alone).

    ``untouched_since``: the store version before an ingest whose writes cannot have changed the
    graph (no ``AUTHORED`` edge with institutions written, no paper updated, no slot moved:
    :func:`kg.ingest.job.ingest` decides). When the graph was last derived at exactly that
    version, it still is what the edges give, and it is not derived again. Why: the derivation
    reads every affiliation of the store, and adding 10 papers to the 100k store spent 80% of its
    time here (about 9 of 11 s). Any other write since the last derivation (an ingest stopped
    before this step, a curation) leaves the versions apart, so the graph is derived in full.
    """
    t0 = time.perf_counter()
    if untouched_since is not None and store.institutions_synced_at() == untouched_since:
        store.note_institutions_synced(store.version())
        counts = store.counts()
        return Synced(
            counts.nodes.get("Institution", 0),
            counts.relationships.get("AFFILIATED_WITH", 0),
            False,
            time.perf_counter() - t0,
            derived=False,
        )
    nodes, rels = derive(iter_slots(store.affiliation_rows()))
    # Compared by digest, both sides streamed: no copy of either graph as models (see graph_digest).
    changed = graph_digest(nodes, rels) != store.institutions_digest()
    if changed:
        store.replace_institutions(_Models(nodes, _node), _Models(rels, _relationship))
    store.note_institutions_synced(store.version())
    return Synced(len(nodes), len(rels), changed, time.perf_counter() - t0)
