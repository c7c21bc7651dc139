"""Every concept's papers of one store version, both orders, held as lists of integer codes.

Why: a concept's page (``concept.papers``, ``papers(where: {concept})``) asks for the papers
of the concept and its narrower closure under the climbs rule (``PaperQuery.narrower``). Its
``totalCount`` is the number of distinct papers of the closure and a page by relevance ranks
all of them, so both grew with the store: at 100k papers "robotics" is 24,570 papers from a
5,000-concept closure, and a page cost 6-9 ms of server CPU on average over the 150 broadest
concepts. Per-concept caches do not help a server asked about many concepts. So, once a version
is warm, every concept's list is built in one pass (numpy arrays of paper codes, a paper's code
being its place in the newest order) from the links that count (``INTRODUCES``, ``MENTIONS``
with ``about`` >= 1) and the version's hierarchy (:mod:`kg.stores.held.hierarchy`, or the
Neo4j store's ``BROADER`` links, :mod:`kg.stores.neo4j.held`); a page is
then a slice and the total a length: ``store.papers`` 4.5 -> 0.02 ms in-process at 100k papers.
Built in 2.3-2.6 s of CPU at 100k papers (0.27 s at 10k), once per version and only once the
version is warm (:class:`ClosurePagesCache`); held: 13.4 MB (Python's peak while building 102 MB).

Exactly the statements' answers (``SQLiteReads.papers`` / ``_relevant_papers``; on Neo4j
``read_queries.papers_page``): the newest order is the store's own (SQLite ``nodes_by_order``,
Neo4j ``_sortKey``), relevance is each paper's best ``rank`` over the
links that count (``COALESCE(MAX(rank), 0.0)``) then newest first, and a query is answered
here only when its concepts are exactly a concept followed by its held closure (or one concept
alone) with no other condition. A concept any of whose links starts at something other than a
paper is left to the statements (they count such a start but do not list it).

>>> pages = ClosurePages.from_rows(
...     ["p:new", "p:mid", "p:old"],  # newest first
...     [[("c:a", "p:old", CLIMBS, 0.9), ("c:a", "p:new", CLIMBS, 0.5), ("c:b", "p:mid", CLIMBS, 0.7)],
...      [("c:b", "p:old", OWN, 0.95), ("c:b", "p:new", CLIMBS, None)]],
...     {"c:a": ("c:b",)},
...     own_min=1,
... )
>>> pages.page(("c:a", "c:b"), ("c:b",), "RELEVANCE", 0, 10)  # c:b's about = 2 link stays below
Page(ids=['p:old', 'p:mid', 'p:new'], total=3)
>>> pages.page(("c:a", "c:b"), ("c:b",), "NEWEST", 1, 1), pages.page(("c:b",), (), "RELEVANCE", 0, 10)
(Page(ids=['p:mid'], total=3), Page(ids=['p:old', 'p:mid', 'p:new'], total=3))
>>> pages.page(("c:a", "c:x"), ("c:x",), "NEWEST", 0, 10) is None  # not c:a's closure
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from itertools import repeat

import numpy as np
import numpy.typing as npt

from kg.stores import warm
from kg.stores.protocol import CLOSURE_LIMIT, Page, PaperOrder, PaperQuery

# A link's kind: which queries it counts for (each store's row reader gives it).
CLIMBS = 1  # INTRODUCES, or about = 1: counts for the concept and every concept above it
OWN = 2  # about = 2 (``climbs: false``): for the concept itself only
ALONE = 3  # any other about >= 1: only for a concept asked alone (the statement's about >= 1)
_NO_RANK = -np.inf  # a NULL rank: MAX ignores it; a paper with none scores 0.0 (COALESCE)
# Links a concept needs for its own list to be held. Fewer are a short index range the statements
# read in about 0.1-0.3 ms at 100k papers (40-75 papers: 0.26 ms a page), and holding the ids of
# the 196,120 concepts with links cost 25 MB more for the 506 of 100 links or more that matter.
OWN_MIN = 64

Codes = npt.NDArray[np.int32]


class ClosurePages:
    """Each concept's own papers (itself alone: ``about`` >= 1 or ``INTRODUCES``; a concept of
    at least ``own_min`` links) and each broad
    concept's closure papers (the climbs rule: ``about`` 1 or 2 for itself, 1 below it), each in
    both orders as codes into :attr:`ids`."""

    def __init__(
        self,
        ids: list[str],
        own: dict[str, int],
        own_ptr: npt.NDArray[np.int64],
        own_relevance: Codes,
        own_newest: Codes,
        wide: dict[str, tuple[tuple[str, ...], Codes, Codes]],
    ) -> None:
        self.ids = ids
        self.own = own  # concept id -> its place in own_ptr (concepts of OWN_MIN links or more)
        self.own_ptr = own_ptr
        self.own_relevance = own_relevance
        self.own_newest = own_newest
        self.wide = wide  # concept id -> (its closure below it, relevance codes, newest codes)

    @classmethod
    def from_rows(
        cls,
        ids: list[str],
        chunks: Iterable[list[tuple[str, str, int, float | None]]],
        closures: Mapping[str, tuple[str, ...]],
        own_min: int,
    ) -> ClosurePages:
        """From the papers in the newest order, the links that count as ``(concept, paper,
        kind, rank)`` rows (each concept's rows together), in lists; ``closures``: each broad
        concept's closure below it; ``own_min``: the links a concept needs for its own list."""
        code_of = {pid: i for i, pid in enumerate(ids)}
        names: list[str] = []  # each concept once, in the rows' order
        slot_parts, code_parts, kind_parts, rank_parts = [], [], [], []
        for chunk in chunks:
            if not chunk:
                continue
            ends, starts, kinds, ranks = zip(*chunk, strict=True)
            at = np.array(ends, dtype=object)
            new = np.ones(len(at), dtype=bool)
            new[1:] = at[1:] != at[:-1]
            if names and ends[0] == names[-1]:
                new[0] = False
            names.extend(at[new].tolist())
            slot_parts.append(np.cumsum(new) + (len(names) - int(new.sum()) - 1))
            code_parts.append(
                np.fromiter(map(code_of.get, starts, repeat(-1)), dtype=np.int64, count=len(starts))
            )
            kind_parts.append(np.array(kinds, dtype=np.int8))
            rank_parts.append(np.array(ranks, dtype=np.float64))  # a NULL becomes NaN
        del code_of
        slots = {name: i for i, name in enumerate(names)}
        n_slots = len(names)
        slot_a = np.concatenate(slot_parts) if slot_parts else np.zeros(0, dtype=np.int64)
        code_a = np.concatenate(code_parts) if code_parts else np.zeros(0, dtype=np.int64)
        kind_a = np.concatenate(kind_parts) if kind_parts else np.zeros(0, dtype=np.int8)
        rank_a = np.concatenate(rank_parts) if rank_parts else np.zeros(0, dtype=np.float64)
        rank_a[np.isnan(rank_a)] = _NO_RANK
        unsure = np.zeros(n_slots, dtype=bool)
        unsure[slot_a[code_a < 0]] = True
        row_ptr = np.zeros(n_slots + 1, dtype=np.int64)
        np.cumsum(np.bincount(slot_a, minlength=n_slots), out=row_ptr[1:])
        # own lists of the concepts with own_min links or more, none unsure: every row counts
        # (the statement's about >= 1 or INTRODUCES)
        held = (np.diff(row_ptr) >= own_min) & ~unsure
        renumber = np.cumsum(held) - 1
        rows = held[slot_a]
        own_ptr, own_relevance, own_newest = _grouped_lists(
            renumber[slot_a[rows]], code_a[rows], rank_a[rows], int(held.sum())
        )
        own = {names[i]: int(renumber[i]) for i in np.flatnonzero(held).tolist()}
        del slot_a, rows, names
        # closure lists: the concept's own rows with about 1 or 2, its closure's with about 1
        climbs = kind_a == CLIMBS
        own_counts = climbs | (kind_a == OWN)
        wide: dict[str, tuple[tuple[str, ...], Codes, Codes]] = {}
        for concept, below in closures.items():
            if not below:
                continue
            top = slots.get(concept)
            members = np.array([s for s in (slots.get(b) for b in below) if s is not None], dtype=np.int64)
            if (top is not None and unsure[top]) or unsure[members].any():
                continue
            mine = np.arange(row_ptr[top], row_ptr[top + 1]) if top is not None else members[:0]
            theirs = _ranges(row_ptr, members)
            rows = np.concatenate((mine[own_counts[mine]], theirs[climbs[theirs]]))
            _, relevance, newest = _grouped_lists(
                np.zeros(len(rows), dtype=np.int64), code_a[rows], rank_a[rows], 1
            )
            wide[concept] = (tuple(below), relevance, newest)
        return cls(ids, own, own_ptr, own_relevance, own_newest, wide)

    @property
    def nbytes(self) -> int:
        """The arrays' bytes (the id strings and dicts not counted)."""
        arrays = sum(r.nbytes + n.nbytes for _, r, n in self.wide.values())
        return int(self.own_ptr.nbytes + self.own_relevance.nbytes + self.own_newest.nbytes + arrays)

    def page(
        self, concepts: tuple[str, ...], narrower: tuple[str, ...], order: PaperOrder, offset: int, limit: int
    ) -> Page | None:
        """The page of the papers of ``concepts`` (``about_only``, ``narrower`` as in
        ``PaperQuery``) in ``order``, or ``None`` when these lists cannot tell it: another
        order, concepts that are not one concept and its held closure, an unsure concept."""
        if order not in ("RELEVANCE", "NEWEST") or not concepts:
            return None
        lists: tuple[Codes, Codes] | None
        if len(concepts) == 1 and not narrower:
            lists = self._own(concepts[0])
        else:
            held = self.wide.get(concepts[0])
            if held is None or narrower != concepts[1:] or held[0] != narrower:
                return None
            lists = (held[1], held[2])
        if lists is None:
            return None
        codes = lists[0] if order == "RELEVANCE" else lists[1]
        window = codes[offset : offset + limit] if limit > 0 else codes[:0]
        ids = self.ids
        return Page(ids=[ids[i] for i in window.tolist()], total=len(codes))

    def _own(self, concept: str) -> tuple[Codes, Codes] | None:
        slot = self.own.get(concept)
        if slot is None:  # a concept of few links (the statements' range is short) or unsure
            return None
        a, b = int(self.own_ptr[slot]), int(self.own_ptr[slot + 1])
        return self.own_relevance[a:b], self.own_newest[a:b]


def _ranges(ptr: npt.NDArray[np.int64], slots: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The row positions of every slot of ``slots``, concatenated."""
    starts = ptr[slots]
    lengths = ptr[slots + 1] - starts
    total = int(lengths.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    # position k of the output belongs to slot j: starts[j] + (k - offset of j)
    offsets = np.cumsum(lengths) - lengths
    return np.repeat(starts - offsets, lengths) + np.arange(total, dtype=np.int64)


def _grouped_lists(
    slot: npt.NDArray[np.int64], code: npt.NDArray[np.int64], rank: npt.NDArray[np.float64], n_slots: int
) -> tuple[npt.NDArray[np.int64], Codes, Codes]:
    """Each slot's distinct papers by relevance (best rank descending, then newest) and in the
    newest order (ascending codes), all slots at once: the lists' bounds, and the lists."""
    order = np.lexsort((-rank, code, slot))  # by slot, code, best rank first
    s, c, r = slot[order], code[order], rank[order]
    first = np.ones(len(s), dtype=bool)
    first[1:] = (s[1:] != s[:-1]) | (c[1:] != c[:-1])
    s, c, r = s[first], c[first], r[first]  # newest order within each slot
    r[r == _NO_RANK] = 0.0
    ptr = np.zeros(n_slots + 1, dtype=np.int64)
    np.cumsum(np.bincount(s, minlength=n_slots), out=ptr[1:])
    relevance = c[np.lexsort((c, -r, s))]
    return ptr, relevance.astype(np.int32), c.astype(np.int32)


# The longest closure a query lists (the concept and 4,999 below it): the lists hold those closures.
HELD_CLOSURE = CLOSURE_LIMIT
# Asks of one version before its lists are built (see ClosurePagesCache.get).
WARM_ASKS = warm.WARM_ASKS


class ClosurePagesCache:
    """The :class:`ClosurePages` of the store version last asked for, built once that version
    has been asked for :data:`WARM_ASKS` times (:class:`kg.stores.warm.WarmSlot`: a server on a
    store under ingest would otherwise build them at every version; the build, 2.2 s of CPU at
    100k, runs outside the lock, and other requests read by statement meanwhile)."""

    def __init__(self, warm_asks: int = WARM_ASKS, background: bool = False) -> None:
        self._slot: warm.WarmSlot[ClosurePages] = warm.WarmSlot(warm_asks, background)

    def get(self, version: int, build: Callable[[], ClosurePages | None]) -> ClosurePages | None:
        """The lists at ``version``; ``None`` while it is not yet warm, while they are built (by
        another thread), or when ``build`` gave none."""
        return self._slot.get(version, build)

    def build_now(self, version: int, build: Callable[[], ClosurePages | None]) -> ClosurePages | None:
        """The lists at ``version``, built on this thread if not held (a server's start)."""
        return self._slot.build_now(version, build)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until no build is running (:meth:`kg.stores.warm.WarmSlot.wait`)."""
        return self._slot.wait(timeout)


_NO_CONDITIONS = PaperQuery()


def held_concepts(query: PaperQuery) -> tuple[str, ...] | None:
    """``query``'s concepts when held lists can answer it: a concept's papers (its closure or
    itself, about links only) by relevance or newest first, with nothing else asked; else
    ``None`` (both stores ask this before they look for the lists)."""
    if (
        query.concepts is None
        or not query.about_only
        or query.sort not in ("RELEVANCE", "NEWEST")
        or replace(query, concepts=None, narrower=(), order=None, about_only=False) != _NO_CONDITIONS
    ):
        return None
    return query.concepts
