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

import re
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kg.core.ids import fold
from kg.core.models import Node, Properties, Relationship
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
    uses: list[_Use] = []
    seen: set[tuple[str, str, str]] = set()
    union = _Union()
    for s in slots:
        for entry in s.entries:
            name, domain = parse_entry(entry)
            key = name_key(name)
            if not key or (s.author, s.paper, entry) in seen:
                continue
            seen.add((s.author, s.paper, entry))
            uses.append((name, domain, key, s.author, s.year, s.paper))
            union.find("n:" + key)
            if domain:
                union.join("n:" + key, "d:" + domain)
    members: dict[str, list[_Use]] = defaultdict(list)
    for use in uses:
        members[union.find("n:" + use[2])].append(use)
    nodes: list[Node] = []
    rels: list[Relationship] = []
    for group in members.values():
        domains = sorted({use[1] for use in group if use[1]})
        keys = sorted({use[2] for use in group})
        iid = PREFIX + (domains[0] if domains else keys[0])
        variants = Counter(use[0] for use in group)
        name = min(variants, key=lambda v: (-variants[v], v))
        props: Properties = {"name": name, "aliases": sorted(v for v in variants if v != name)}
        if domains:
            props["domain"] = domains[0]
        nodes.append(Node(id=iid, label="Institution", properties=props))
        years: dict[str, set[int]] = defaultdict(set)
        papers: dict[str, set[str]] = defaultdict(set)
        for _, _, _, author, year, paper in group:
            papers[author].add(paper)
            found = years[author]
            if year is not None:
                found.add(year)
        for author in sorted(years):
            props = {"years": sorted(years[author]), "papers": sorted(papers[author])}
            rels.append(Relationship(type="AFFILIATED_WITH", start=author, end=iid, properties=props))
    nodes.sort(key=lambda n: n.id)
    rels.sort(key=lambda r: (r.start, r.end))
    return _merge_same_ids(nodes, rels)


def _merge_same_ids(nodes: list[Node], rels: list[Relationship]) -> tuple[list[Node], list[Relationship]]:
    """Guard: two groups cannot share an id (a domain joins its names; a name key is in one
    group), but should it happen, keep the first so the stores never see a duplicate."""
    out: list[Node] = []
    ids: set[str] = set()
    for n in nodes:
        if n.id not in ids:
            ids.add(n.id)
            out.append(n)
    keys: set[tuple[str, str]] = set()
    kept: list[Relationship] = []
    for r in rels:
        if (r.start, r.end) not in keys:
            keys.add((r.start, r.end))
            kept.append(r)
    return out, kept


def slots_from_rows(rows: Iterable[tuple[str, str, object, object]]) -> list[AffiliationSlot]:
    """:class:`AffiliationSlot` from ``(author, paper, year, institutions)`` store rows."""
    out: list[AffiliationSlot] = []
    for author, paper, year, entries in rows:
        if not isinstance(entries, list) or not entries:
            continue
        y = int(year) if isinstance(year, int | float) and not isinstance(year, bool) else None
        out.append(AffiliationSlot(author, paper, y, tuple(str(e) for e in entries)))
    return out


def stored_graph(nodes: Sequence[Node], rels: Sequence[Relationship]) -> tuple[object, object]:
    """A comparable form of an institution graph (to skip a write that would change nothing)."""
    return (
        sorted((n.id, sorted(n.properties.items())) for n in nodes),
        sorted((r.start, r.end, sorted(r.properties.items())) for r in rels),
    )


@dataclass(frozen=True)
class Synced:
    """What :func:`sync` found: the institution graph's size, whether it was rewritten, its cost."""

    institutions: int
    affiliations: int
    changed: bool
    seconds: float

    def line(self) -> str:
        """The ``kg ingest`` summary line."""
        state = "rewritten" if self.changed else "unchanged"
        return (
            f"  institutions: {self.institutions:,} institution(s), {self.affiliations:,} affiliation(s) "
            f"({state}) in {self.seconds:.1f} s"
        )


def sync(store: GraphStore) -> Synced:
    """Rebuild the store's institution graph from its ``AUTHORED`` edges; written only when it
    differs from the stored one (a re-ingest leaves the store version alone)."""
    t0 = time.perf_counter()
    nodes, rels = build(slots_from_rows(store.affiliation_rows()))
    current = (store.nodes_by_label("Institution"), store.relationships("AFFILIATED_WITH"))
    changed = stored_graph(nodes, rels) != stored_graph(*current)
    if changed:
        store.replace_institutions(nodes, rels)
    return Synced(len(nodes), len(rels), changed, time.perf_counter() - t0)
