"""Rules for the derived, weighted relationships, shared by both stores.

``COAUTHOR {papers}`` links every pair of a paper's authors. ``CO_OCCURS {papers}`` links
the pairs among a paper's :data:`CO_OCCURS_TOP_K` best-scored concepts only: all pairs of
all mentions would grow quadratically with abstract length and drown the concept graph in
incidental pairs ("deep learning" with everything), which makes Neo4j Browser pictures
unreadable and writes slow.

Both weights are a function of the stored graph, not of the order it was written in: a
paper's authors only accumulate, so its COAUTHOR pairs only grow; its top concepts can change
(a later mention scores higher, a provisional concept is promoted), so a pair that leaves the
top set loses that paper again (:func:`cooccurs_changes`), and a pair at 0 papers is deleted.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping

CO_OCCURS_TOP_K = 8
# A paper with more authors than this keeps every AUTHORED edge but is marked
# ``coauthorPairs: false`` (kg.authors.v1), and stores derive no COAUTHOR pairs for it: pairs
# grow with the square of the author count (2,000 authors = 2 million pairs, 1.8 GB), and a
# collaboration of hundreds says little about who works with whom.
COAUTHOR_PAIR_CAP = 100
COAUTHOR_PAIRS_PROPERTY = "coauthorPairs"


def coauthor_pairs_allowed(paper_properties: Mapping[str, object]) -> bool:
    """False for a paper marked ``coauthorPairs: false``: stores derive no COAUTHOR pairs from it."""
    return paper_properties.get(COAUTHOR_PAIRS_PROPERTY) is not False


def top_concepts(mentions: Iterable[tuple[str, float]]) -> set[str]:
    """The concepts of one paper that take part in ``CO_OCCURS``: best score first, ties by id.

    >>> sorted(top_concepts([("c:a", 1.0), ("c:b", 3.0)]))
    ['c:a', 'c:b']
    """
    ranked = sorted(mentions, key=lambda m: (-m[1], m[0]))
    return {cid for cid, _ in ranked[:CO_OCCURS_TOP_K]}


def new_pairs(before: set[str], after: set[str]) -> list[tuple[str, str]]:
    """Pairs (sorted ids) that ``after`` connects and ``before`` did not: each gets ``papers += 1``.

    >>> new_pairs({"a", "b"}, {"a", "b", "c"})
    [('a', 'c'), ('b', 'c')]
    """
    return [(a, b) for a, b in itertools.combinations(sorted(after), 2) if not (a in before and b in before)]


def cooccurs_changes(before: set[str], after: set[str]) -> list[tuple[tuple[str, str], int]]:
    """``(pair, +1 or -1)`` for the pairs a paper's new top set gains and loses.

    >>> cooccurs_changes({"a", "b"}, {"a", "c"})
    [(('a', 'c'), 1), (('a', 'b'), -1)]
    """
    gained = [(pair, 1) for pair in new_pairs(before, after)]
    lost = [(pair, -1) for pair in new_pairs(after, before)]
    return gained + lost


def coauthor_deltas(
    papers: Iterable[str],
    before: Mapping[str, set[str]],
    after: Mapping[str, set[str]],
    allowed: Mapping[str, bool],
) -> dict[tuple[str, str], int]:
    """Net change of each co-author pair's ``papers`` when the bylines of ``papers`` go from
    ``before`` to ``after`` (author ids per paper), leaving out papers that give no pairs.

    Why here: both stores move author slots between people (``kg.authors.ingest``) and must
    adjust the derived COAUTHOR weights by the same rule.

    >>> coauthor_deltas(["p"], {"p": {"a", "b"}}, {"p": {"a", "c"}}, {})
    {('a', 'b'): -1, ('a', 'c'): 1}
    """
    deltas: dict[tuple[str, str], int] = {}
    for pid in papers:
        if not allowed.get(pid, True):
            continue
        for pair, step in cooccurs_changes(before[pid], after[pid]):
            deltas[pair] = deltas.get(pair, 0) + step
    return {pair: n for pair, n in sorted(deltas.items()) if n}


def cooccurs_deltas(
    mentions: Mapping[str, Mapping[str, float]],
    removed: set[str],
    cut: set[tuple[str, str]],
) -> dict[tuple[str, str], int]:
    """Net change of each CO_OCCURS pair when the concepts ``removed`` and the ``(paper,
    concept)`` MENTIONS in ``cut`` leave the papers of ``mentions`` (each paper's concept ->
    score), by the top-k rule of :func:`top_concepts`; pairs with a removed concept are left out
    (they go with it).

    Why here: both stores drop concepts and links for ``kg curate`` (``kg.curation.concept_apply``)
    and must adjust the derived CO_OCCURS weights by the same rule.

    >>> cooccurs_deltas({"p": {"a": 3.0, "b": 2.0, "c": 1.0}}, set(), {("p", "b")})
    {('a', 'b'): -1, ('b', 'c'): -1}
    """
    deltas: dict[tuple[str, str], int] = {}
    for pid in sorted(mentions):
        before = top_concepts(mentions[pid].items())
        after = top_concepts(
            (cid, s) for cid, s in mentions[pid].items() if cid not in removed and (pid, cid) not in cut
        )
        for (a, b), n in cooccurs_changes(before, after):
            if a not in removed and b not in removed:
                deltas[(a, b)] = deltas.get((a, b), 0) + n
    return deltas
