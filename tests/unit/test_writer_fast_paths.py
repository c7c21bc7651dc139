"""The ingest writer's fast paths give exactly what the general paths give.

Each shortcut (the first-insert merge, the provisional plan's pass-through, a new node's paper
count written with its row, the relaxed collector, the headline rule settled in the extraction
workers) is checked against the slow path it skips,
on the seed records and on crafted maps that sit on each side of its condition; and grouping
extracted batches into larger transactions gives the graph batch-by-batch writes give.
"""

from __future__ import annotations

import gc
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kg.core.collector import collector_relaxed
from kg.core.config import Settings
from kg.core.merge import RULED_KEYS, merge_by_rules, merge_properties
from kg.core.models import Graph, Node, PaperRecord, Properties, Relationship, SettledRecord, settled_record
from kg.core.names import loose_key
from kg.core.provisional import PROVISIONAL, earns_node, first_sentence, headline_words, plan, settle
from kg.ingest.job import ingest
from kg.ingest.pipeline import Pipeline
from kg.stores import write_size
from kg.stores.sqlite import DB_FILE, SQLiteStore
from kg.stores.sqlite.schema import PAPER_DEGREE
from kg.stores.sqlite.store import WRITE_BATCH

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "listings"

# Maps on both sides of the shortcut's condition: no ruled key and no None (taken), or not.
_CRAFTED: list[Properties] = [
    {},
    {"score": 0.5, "about": True, "count": 2, "evidence": "a sentence", "surface": "RL"},
    {"position": 1},
    {"score": 0.5, "about": None},
    {"source": "vocabulary"},  # a curated source without a name is dropped by the rules
    {"source": "discovered", "kind": "METHOD"},
    {"kind": "TASK", "x": 1},
    {"name": "Jie Zhou", "aliases": ["J. Zhou", "Jie Zhou"]},
    {"aliases": ["b", "a"]},
    {"title": "T", "titleSource": "DERIVED", "shortTitle": None},
    {"sources": ["b:2", "a:1"], "year": 2020},
    {"flag": False, "values": [3, 1, 2]},
]


def _maps(records: list[PaperRecord]) -> list[Properties]:
    out = list(_CRAFTED)
    for r in records:
        out.append(r.paper.properties)
        out.extend(n.properties for n in r.nodes)
        out.extend(rel.properties for rel in r.relationships)
    return out


def test_first_insert_shortcut_gives_the_rules_result_in_the_same_key_order(
    seed_records: list[PaperRecord],
) -> None:
    maps = _maps(seed_records)
    taken = 0
    for props in maps:
        fast = merge_properties({}, props)
        assert list(fast.items()) == list(merge_by_rules({}, props).items()), props
        if props.keys().isdisjoint(RULED_KEYS) and None not in props.values():
            taken += 1
            assert fast is not props  # a copy: the store may change it later
    assert taken > len(maps) // 2  # the relationships of the records take it


def test_the_shortcut_is_only_for_a_first_insert() -> None:
    old: Properties = {"score": 0.9}
    assert merge_properties(old, {"score": 0.5}) == merge_by_rules(old, {"score": 0.5}) == {"score": 0.9}


def _record(pid: str, concepts: list[tuple[str, bool]]) -> PaperRecord:
    nodes = []
    for cid, provisional in concepts:
        props: Properties = {"name": cid[2:], "kind": "CONCEPT", "source": "discovered", "aliases": []}
        if provisional:
            props[PROVISIONAL] = True
        nodes.append(Node(id=cid, label="Concept", properties=props))
    rels = [
        Relationship(type="MENTIONS", start=pid, end=cid, properties={"score": 1.0}) for cid, _ in concepts
    ]
    paper = Node(id=pid, label="Paper", properties={"title": pid, "titleSource": "LISTING"})
    return PaperRecord(paper=paper, nodes=nodes, relationships=rels)


def test_a_record_without_provisional_concepts_passes_through_the_plan_unchanged() -> None:
    plain = _record("paper:plain", [("c:known", False)])
    mixed = _record("paper:mixed", [("c:rare", True), ("c:known", False)])
    out = plan([mixed, plain], existing=set(), stored={})
    assert out.records[1] is plain
    # what the general path makes of it: a copy with the same nodes
    assert plain.model_copy(update={"nodes": list(plain.nodes)}) == out.records[1]
    assert [n.id for n in out.records[0].nodes] == ["c:known"] and ("c:rare", "paper:mixed") in out.keep


def _earns_by_definition(paper: Properties, node: Properties, rel: Properties) -> bool:
    """The headline rule as written: a phrase's words in a row in the title or first sentence."""
    if rel.get("about") is not True:
        return False
    places = [str(v) for v in (paper.get("title"),) if isinstance(v, str)]
    if isinstance(paper.get("abstract"), str):
        places.append(first_sentence(str(paper["abstract"])))
    for place in places:
        have = loose_key(place).split()
        for phrase in {str(x) for x in (rel.get("surface"), node.get("name")) if isinstance(x, str) and x}:
            want = loose_key(phrase).split()
            if want and any(have[i : i + len(want)] == want for i in range(len(have) - len(want) + 1)):
                return True
    return False


def test_the_headline_rule_with_the_papers_words_keyed_once_decides_as_the_definition(
    seed_records: list[PaperRecord],
) -> None:
    crafted: list[tuple[Properties, str]] = [
        ({"title": "Tor networks at scale", "abstract": "We study it. Then more."}, "Tor network"),
        ({"abstract": "We measure the Tor network. Then more."}, "tor networks"),
        ({"title": "Nothing here", "abstract": "We study it. The Tor network later."}, "Tor network"),
        ({"title": "Tor", "abstract": None}, ""),
    ]
    cases: list[tuple[Properties, Properties, Properties]] = [
        (paper, {"name": name}, {"about": about, "surface": name})
        for paper, name in crafted
        for about in (True, False, None)
    ]
    for r in seed_records:
        mentions = {rel.end: rel.properties for rel in r.relationships if rel.type == "MENTIONS"}
        cases.extend((r.paper.properties, n.properties, mentions[n.id]) for n in r.nodes if n.id in mentions)
    verdicts = []
    for paper, node, rel in cases:
        want = _earns_by_definition(paper, node, rel)
        assert earns_node(paper, node, rel) == want
        assert earns_node(paper, node, rel, headline_words(paper)) == want
        verdicts.append(want)
    assert True in verdicts and False in verdicts


def _paper_counts(path: Path) -> dict[str, int]:
    conn = sqlite3.connect(path / DB_FILE)
    try:
        return dict(conn.execute("SELECT id, paper_count FROM nodes").fetchall())
    finally:
        conn.close()


def _degrees_from_rels(path: Path) -> dict[str, int]:
    """Each node's paper count recounted from the relationships (the schema's definition)."""
    conn = sqlite3.connect(path / DB_FILE)
    try:
        counts = dict.fromkeys((r[0] for r in conn.execute("SELECT id FROM nodes")), 0)
        for start, typ, end, about in conn.execute('SELECT start, type, "end", about FROM rels'):
            side = PAPER_DEGREE.get(typ)
            if side is None or (typ == "MENTIONS" and about == 0):
                continue
            counts[start if side == "start" else end] += 1
        return counts
    finally:
        conn.close()


def test_paper_counts_written_with_new_rows_equal_the_recount(
    tmp_path: Path, seed_records: list[PaperRecord]
) -> None:
    store = SQLiteStore(tmp_path)
    half = len(seed_records) // 2
    store.upsert(seed_records[:half])  # new nodes: counted in their INSERT
    store.upsert(seed_records[half:])  # nodes of both kinds: new ones and updated ones
    store.upsert(seed_records)  # nothing new
    store.close()
    counts = _paper_counts(tmp_path)
    assert counts == _degrees_from_rels(tmp_path)
    assert sum(counts.values()) > len(seed_records)


def test_the_relaxed_collector_restores_the_thresholds_and_frees_cycles() -> None:
    before = gc.get_threshold()
    frozen = gc.get_freeze_count()
    with collector_relaxed(gen0_threshold=10_000):
        assert gc.get_threshold()[0] == 10_000 and gc.get_freeze_count() >= frozen
        cycle: list[Any] = []
        cycle.append(cycle)
        del cycle
        assert gc.collect() >= 1  # cyclic garbage is still collected
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def _ingested(path: Path, nlp: Any, write: int | None) -> tuple[Graph, list[int], int]:
    store = SQLiteStore(path)
    writes: list[int] = []
    try:
        report = ingest(
            [EXAMPLES], store, Pipeline(nlp=nlp), batch_size=7, write_size=write, on_batch=writes.append
        )
        assert report.ok, report.lines()
        return store.export(), writes, report.summary.added
    finally:
        store.close()


def test_grouped_writes_give_the_graph_batch_by_batch_writes_give(tmp_path: Path, nlp_fast: Any) -> None:
    """Equal as the store contract defines it (``test_batch_boundaries_do_not_change_the_graph``):
    the same nodes, relationships and property values. The key order inside a paper's property
    map may follow the batch boundaries (where a promoted phrase leaves ``keyphrases``), as it
    did before with any other ``KG_BATCH_SIZE``; no API answer shows that order."""
    alone, writes_alone, added = _ingested(tmp_path / "alone", nlp_fast, None)
    grouped, writes_grouped, added_grouped = _ingested(tmp_path / "grouped", nlp_fast, 20)
    assert grouped == alone and added == added_grouped == sum(writes_alone) == sum(writes_grouped)
    assert set(writes_alone[:-1]) == {7}  # the default: one transaction per extracted batch
    assert all(n >= 20 for n in writes_grouped[:-1]) and len(writes_grouped) < len(writes_alone)


def test_write_size_is_the_setting_or_the_backends_choice() -> None:
    assert write_size(Settings(backend="sqlite")) == WRITE_BATCH
    assert write_size(Settings(backend="sqlite", batch_size=5000)) == 5000
    assert write_size(Settings(backend="neo4j", batch_size=300)) is None  # each batch alone
    assert write_size(Settings(backend="neo4j", write_batch_size=800)) == 800


def _provisional(records: Sequence[PaperRecord]) -> int:
    return sum(1 for r in records for n in r.nodes if n.properties.get(PROVISIONAL) is True)


def _plan_view(records: Sequence[PaperRecord]) -> Any:
    out = plan(records, set(), {})
    return [r.model_dump() for r in out.records], out.keep, out.promote, out.drop, out.changed_papers


def test_records_settled_in_the_workers_plan_as_the_writers_own_rule_does(
    seed_records: list[PaperRecord],
) -> None:
    """``kg ingest`` applies the headline rule where a batch is extracted (``settle``) and the
    writer's plan skips it for a :class:`SettledRecord`: the plan must be the one the writer
    gets by applying the rule itself, on the seed records, where the rule unmarks some
    concepts and leaves others provisional."""
    settled = [settle(r) for r in seed_records]
    assert all(isinstance(r, SettledRecord) for r in settled)
    assert 0 < _provisional(settled) < _provisional(seed_records)  # the rule decided both ways
    assert [r.model_dump() for r in settled] == [settle(r).model_dump() for r in settled]  # idempotent
    assert _plan_view(settled) == _plan_view(seed_records)


def test_a_settled_record_is_not_checked_again() -> None:
    """The type is what the plan trusts: a provisional concept the headline rule would make a
    node stays a keyphrase row in a record marked settled (so the mark must only come from
    :func:`settle`), and becomes a node in the same record unmarked."""
    paper = Node(
        id="paper:p", label="Paper", properties={"title": "Tor networks", "abstract": "We study it."}
    )
    concept = Node(id="concept:tor", label="Concept", properties={"name": "Tor network", PROVISIONAL: True})
    mention = Relationship(
        type="MENTIONS",
        start="paper:p",
        end="concept:tor",
        properties={"about": True, "surface": "Tor networks"},
    )
    record = PaperRecord(paper=paper, nodes=[concept], relationships=[mention])
    as_node = plan([record], set(), {})
    assert not as_node.keep and [n.id for n in as_node.records[0].nodes] == ["concept:tor"]
    kept = plan([settled_record(record)], set(), {})
    assert list(kept.keep) == [("concept:tor", "paper:p")] and not kept.records[0].nodes


def test_an_ingest_with_workers_writes_the_graph_upserting_the_extracted_records_writes(
    tmp_path: Path, nlp_fast: Any, seed_records: list[PaperRecord]
) -> None:
    """The records ``kg ingest`` finishes in its workers (authors as their slots here, the
    headline rule settled) give the store the graph the unfinished records give it."""
    store = SQLiteStore(tmp_path / "ingest")
    try:
        report = ingest(
            [EXAMPLES], store, Pipeline(nlp=nlp_fast), batch_size=7, jobs=2, resolve_authors=False
        )
        assert report.ok, report.lines()
        ingested = store.export()
    finally:
        store.close()
    direct = SQLiteStore(tmp_path / "direct")
    try:
        direct.upsert(seed_records)
        assert direct.export() == ingested
    finally:
        direct.close()
