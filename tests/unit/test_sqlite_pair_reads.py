"""The embedded store's tie reads equal their definition over every pair, heavy or not.

Why: only ties heavier than ``schema.HEAVY_TIE`` are in the weight-ordered indexes, so each
tie read merges two sources (the heavy index ranges, then weight-1 ties by primary key or
``rels_by_end_about``). This checks every node, limit and minimum weight of the seed graph
against the answers computed from ``export()``: the order (weight descending, then id), the
cut at the limit and the whole-graph sums.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from kg.core.models import Relationship
from kg.stores.held import heavy_ties
from kg.stores.protocol import PairEdge, PairType, Weighted
from kg.stores.sqlite import SQLiteStore
from kg.stores.sqlite.schema import HEAVY_TIE
from kg.stores.sqlite.store import DB_FILE


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory, seed_records: list[Any]) -> SQLiteStore:
    s = SQLiteStore(Path(tmp_path_factory.mktemp("pairs")))
    s.upsert(seed_records)
    return s


def _papers(rel: Relationship) -> int:
    value = rel.properties["papers"]
    assert isinstance(value, int)
    return value


def _ties(store: SQLiteStore, pair: PairType) -> list[PairEdge]:
    return sorted(
        PairEdge(r.start, r.end, _papers(r)) for r in store.export().relationships if r.type == pair
    )


@pytest.mark.parametrize("pair", ["COAUTHOR", "CO_OCCURS"])
def test_neighbours_heavy_then_light_in_weight_then_id_order(store: SQLiteStore, pair: PairType) -> None:
    ties = _ties(store, pair)
    by_node: dict[str, list[Weighted]] = defaultdict(list)
    for t in ties:
        by_node[t.source].append(Weighted(t.target, t.weight))
        by_node[t.target].append(Weighted(t.source, t.weight))
    mixed = [n for n, ws in by_node.items() if {w.weight > HEAVY_TIE for w in ws} == {True, False}]
    assert mixed, "the seed graph must hold nodes with both heavy and weight-1 ties"
    nodes = sorted(by_node)
    for min_weight in (1, 2, 3):
        for limit in (0, 1, 2, 3, 7, 10_000):
            got = store.weighted_neighbors(nodes, pair, min_weight, limit)
            for nid, answer in zip(nodes, got, strict=True):
                want = sorted(
                    (w for w in by_node[nid] if w.weight >= min_weight), key=lambda w: (-w.weight, w.id)
                )[:limit]
                assert answer == want, (nid, min_weight, limit)


@pytest.mark.parametrize("pair", ["COAUTHOR", "CO_OCCURS"])
def test_strongest_nodes_and_heaviest_pairs_over_all_ties(store: SQLiteStore, pair: PairType) -> None:
    ties = _ties(store, pair)
    assert {t.weight > HEAVY_TIE for t in ties} == {True, False}
    for min_weight in (1, 2, 3):
        total: dict[str, int] = defaultdict(int)
        for t in ties:
            if t.weight >= min_weight:
                total[t.source] += t.weight
                total[t.target] += t.weight
        ranked = sorted(total, key=lambda n: (-total[n], n))
        for limit in (1, 5, 10_000):
            assert store.strongest_nodes(pair, min_weight, limit) == (ranked[:limit], len(ranked) > limit)
    ordered = sorted(ties, key=lambda t: (-t.weight, t.source, t.target))
    heavy = sum(1 for t in ties if t.weight > HEAVY_TIE)
    for limit in (0, 1, heavy, heavy + 1, heavy + 3, 10_000):
        assert store.heaviest_pairs(pair, limit) == ordered[:limit], limit


def _tie_sums(store: SQLiteStore) -> dict[str, int]:
    """Each node's summed tie weights, from the exported pairs (the definition of ``ties``)."""
    sums: dict[str, int] = defaultdict(int)
    for r in store.export().relationships:
        if r.type in ("COAUTHOR", "CO_OCCURS"):
            sums[r.start] += _papers(r)
            sums[r.end] += _papers(r)
    return dict(sums)


def _kept_ties(store: SQLiteStore) -> dict[str, int]:
    return dict(store._reader().execute("SELECT id, ties FROM nodes WHERE ties != 0").fetchall())


def test_kept_tie_sums_follow_batches_and_removed_pairs(tmp_path: Path, seed_records: list[Any]) -> None:
    """``nodes.ties`` is kept per write, so it must survive any batching: pairs that grow, new
    ones, and pairs that go when a re-ingested paper's top concepts change."""
    store = SQLiteStore(tmp_path)
    order = seed_records[::-1]
    for i in range(0, len(order), 7):
        store.upsert(order[i : i + 7])
    store.upsert(seed_records[:20])  # unchanged re-ingest
    assert _kept_ties(store) == _tie_sums(store)

    # A paper listed first with only its weaker concepts, then in full: its top concepts change,
    # so CO_OCCURS pairs among the weaker ones lose a paper (negative changes, some pairs go).
    def mentions(r: Any) -> list[Any]:
        return sorted(
            (rel for rel in r.relationships if rel.type == "MENTIONS"),
            key=lambda rel: -float(rel.properties.get("score") or 0),
        )

    record = max(seed_records, key=lambda r: len(mentions(r)))
    strong = {rel.end for rel in mentions(record)[:3]}
    assert len(mentions(record)) >= 11
    weak = record.model_copy(
        update={"relationships": [rel for rel in record.relationships if rel.end not in strong]}
    )
    fresh = SQLiteStore(tmp_path / "weak")
    fresh.upsert([weak])
    pairs_before = {(r.start, r.end) for r in fresh.export().relationships if r.type == "CO_OCCURS"}
    fresh.upsert(seed_records)
    pairs_after = {(r.start, r.end) for r in fresh.export().relationships if r.type == "CO_OCCURS"}
    assert pairs_before - pairs_after, "the full listing must remove some pairs of the weak one"
    assert _kept_ties(fresh) == _tie_sums(fresh)
    assert _kept_ties(store) == _tie_sums(store)


def test_a_store_without_kept_tie_sums_gets_them_when_opened(tmp_path: Path, seed_records: list[Any]) -> None:
    store = SQLiteStore(tmp_path)
    store.upsert(seed_records)
    expected = _tie_sums(store)
    strongest = store.strongest_nodes("CO_OCCURS", 1, 10)
    store.close()
    con = sqlite3.connect(tmp_path / DB_FILE)
    con.execute("DROP INDEX nodes_by_ties")
    con.execute("ALTER TABLE nodes DROP COLUMN ties")
    con.commit()
    con.close()
    again = SQLiteStore(tmp_path)
    assert _kept_ties(again) == expected
    assert again.strongest_nodes("CO_OCCURS", 1, 10) == strongest
    plan = (
        again._reader()
        .execute(
            "EXPLAIN QUERY PLAN SELECT id FROM nodes INDEXED BY nodes_by_ties WHERE label = 'Concept' "
            "AND ties > 0 ORDER BY ties DESC, id LIMIT 5"
        )
        .fetchall()
    )
    assert "nodes_by_ties" in str(plan) and "TEMP B-TREE" not in str(plan)


@pytest.mark.parametrize("pair", ["COAUTHOR", "CO_OCCURS"])
def test_ties_among_chosen_nodes_at_every_weight(store: SQLiteStore, pair: PairType) -> None:
    # Concepts: above weight 1 from the version's heavy ties held in memory
    # (kg.stores.held.heavy_ties), at weight 1 from the statements; co-authors at every weight
    # from every tie held (kg.stores.held.coauthor_ties) once warm: all equal the export.
    ties = _ties(store, pair)
    nodes = sorted({t.source for t in ties} | {t.target for t in ties})
    for chosen in (nodes, nodes[::3], nodes[1::2] + ["concept:no-such-node"], nodes[:1]):
        for min_weight in (1, 2, 3, 5):
            inside = set(chosen)
            want = [t for t in ties if t.source in inside and t.target in inside and t.weight >= min_weight]
            # asked past WARM_ASKS: the per-pair statement first, then the held ties, alike
            for ask in range(heavy_ties.WARM_ASKS + 1):
                got = store.pair_edges_among(chosen[::-1], pair, min_weight)
                assert got == want, (len(chosen), min_weight, ask)


@pytest.mark.parametrize(("pair", "min_weight"), [("CO_OCCURS", 2), ("COAUTHOR", 1), ("COAUTHOR", 2)])
def test_held_ties_seen_after_a_write(
    tmp_path: Path, seed_records: list[Any], pair: PairType, min_weight: int
) -> None:
    store = SQLiteStore(tmp_path)
    store.upsert(seed_records[: len(seed_records) // 2])
    ties = _ties(store, pair)
    nodes = sorted({t.source for t in ties} | {t.target for t in ties})
    for _ in range(heavy_ties.WARM_ASKS):  # then this version's ties are held
        store.pair_edges_among(nodes, pair, min_weight)
    store.upsert(seed_records)
    ties = _ties(store, pair)
    nodes = sorted({t.source for t in ties} | {t.target for t in ties})
    want = [t for t in ties if t.weight >= min_weight]
    for _ in range(heavy_ties.WARM_ASKS + 1):  # the new version, by statement, then held
        assert want and store.pair_edges_among(nodes, pair, min_weight) == want


def test_co_author_ties_at_a_warm_version_read_no_ties_from_the_store(store: SQLiteStore) -> None:
    ties = _ties(store, "COAUTHOR")
    nodes = sorted({t.source for t in ties} | {t.target for t in ties})
    for _ in range(heavy_ties.WARM_ASKS):
        store.pair_edges_among(nodes, "COAUTHOR", 1)
    assert store.wait_builds(60)  # the ties are read on a thread of their own
    seen: list[str] = []
    conn = store._reader()
    conn.set_trace_callback(seen.append)
    try:
        assert store.pair_edges_among(nodes[::2], "COAUTHOR", 1) == [
            t for t in ties if t.source in nodes[::2] and t.target in nodes[::2]
        ]
    finally:
        conn.set_trace_callback(None)
    assert seen and not any("rels" in sql for sql in seen)  # the nodes' rowids only


def test_heavy_ties_are_read_once_a_version_is_warm() -> None:
    """A version asked for once or twice (a server on a store being ingested) never pays the
    read; the third ask reads, later asks of that version reuse it, a new version starts over."""
    reads: list[int] = []

    def read() -> heavy_ties.HeavyTies:
        reads.append(1)
        return heavy_ties.HeavyTies.from_rows([(1, 2, 3)])

    cache = heavy_ties.HeavyTiesCache(warm_asks=3)
    got = [cache.get(7, "CO_OCCURS", read) for _ in range(4)]
    assert [g is None for g in got] == [True, True, False, False] and len(reads) == 1
    assert cache.get(8, "CO_OCCURS", read) is None and len(reads) == 1
    assert cache.get(7, "COAUTHOR", read) is None  # each pair type counts its own asks
