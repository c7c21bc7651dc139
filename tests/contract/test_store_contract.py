"""The ``GraphStore`` contract, run once per backend through the parametrised ``store`` fixture.

Each test states a promise of :class:`kg.stores.protocol.GraphStore` (or of the rules in :mod:`kg.core.merge`
and :mod:`kg.core.derived` that every backend follows) and checks it from the outside: what an
upsert reports and what the reads return afterwards.
"""

from __future__ import annotations

import itertools
import os
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from kg.core.derived import CO_OCCURS_TOP_K
from kg.core.errors import GraphStoreError
from kg.core.ids import fold
from kg.core.models import LABELS, REL_TYPES, Node, PaperRecord, Properties, Relationship
from kg.core.provisional import earns_node
from kg.stores.protocol import GraphStore

SEED_NODES = {"Paper": 58, "Venue": 2, "Author": 108, "Topic": 19}
SEED_RELS = {"HAS_TOPIC": 20, "AUTHORED": 110}


# -- small hand-built records -------------------------------------------------------------------
def paper(key: str, **props: Any) -> Node:
    return Node(id=f"paper:{key}", label="Paper", properties={"abstract": f"Abstract {key}.", **props})


def author(name: str) -> Node:
    return Node(id=f"author:{name.lower()}", label="Author", properties={"name": name})


def concept(name: str, aliases: Sequence[str] = ()) -> Node:
    return Node(
        id=f"concept:{name.lower().replace(' ', '-')}",
        label="Concept",
        properties={"name": name, "kind": "CONCEPT", "aliases": list(aliases)},
    )


def rel(type_: str, start: Node, end: Node, **props: Any) -> Relationship:
    return Relationship.model_validate({"type": type_, "start": start.id, "end": end.id, "properties": props})


def record(p: Node, authors: Sequence[Node] = (), mentions: Sequence[tuple[Node, float]] = ()) -> PaperRecord:
    """A paper with its authors (``AUTHORED {position}``) and scored ``MENTIONS``."""
    nodes = [*authors, *(c for c, _ in mentions)]
    rels = [rel("AUTHORED", a, p, position=i) for i, a in enumerate(authors, start=1)]
    rels += [
        rel("MENTIONS", p, c, count=1, score=s, evidence=[f"{c.properties['name']}."]) for c, s in mentions
    ]
    return PaperRecord(paper=p, nodes=nodes, relationships=rels)


def weights(store: GraphStore, rel_type: Any) -> dict[tuple[str, str], Any]:
    return {(r.start, r.end): r.properties["papers"] for r in store.relationships(rel_type)}


# -- upsert and counts ---------------------------------------------------------------------------
def test_empty_store_counts_every_label_and_type_as_zero(store: GraphStore) -> None:
    counts = store.counts()
    assert counts.nodes == dict.fromkeys(LABELS, 0)
    assert counts.relationships == dict.fromkeys(REL_TYPES, 0)
    assert store.export().nodes == [] and store.export().relationships == []


def test_upserting_the_seeds_gives_the_seed_stats(store: GraphStore, seed_records: list[PaperRecord]) -> None:
    summary = store.upsert(seed_records)
    assert (summary.added, summary.updated, summary.unchanged) == (58, 0, 0)
    counts = store.counts()
    assert list(counts.nodes) == list(LABELS) and list(counts.relationships) == list(REL_TYPES)
    assert {k: counts.nodes[k] for k in SEED_NODES} == SEED_NODES
    assert {k: counts.relationships[k] for k in SEED_RELS} == SEED_RELS
    graph = store.export()
    assert len(graph.nodes) == sum(counts.nodes.values())
    assert len(graph.relationships) == sum(counts.relationships.values())


def test_reupserting_changes_nothing(store: GraphStore, seed_records: list[PaperRecord]) -> None:
    store.upsert(seed_records)
    counts, graph = store.counts(), store.export()
    again = store.upsert(seed_records)
    assert (again.added, again.updated, again.unchanged) == (0, 0, 58)
    assert store.counts() == counts
    assert store.export() == graph


def test_batch_boundaries_do_not_change_the_graph(store: GraphStore, seed_records: list[PaperRecord]) -> None:
    store.upsert(seed_records)
    whole = store.export()
    store.clear()
    total = 0
    for i in range(0, len(seed_records), 7):
        total += store.upsert(seed_records[i : i + 7]).added
    assert total == 58
    assert store.export() == whole


def test_empty_upsert_reports_nothing(store: GraphStore) -> None:
    summary = store.upsert([])
    assert (summary.added, summary.updated, summary.unchanged) == (0, 0, 0)


def test_same_paper_in_two_records_merges(store: GraphStore) -> None:
    listing = paper(
        "p",
        title="Bandits with Knapsacks",
        titleSource="LISTING",
        shortTitle="Bandits with Knapsacks",
        sources=["a.txt:1"],
        year=2024,
    )
    derived = paper(
        "p",
        title="We study bandits",
        titleSource="DERIVED",
        shortTitle="We study bandits",
        sources=["b.jsonl:3", "a.txt:1"],
        year=None,
        keywords=["bandits"],
    )
    first = store.upsert([record(listing)])
    second = store.upsert([record(derived)])
    third = store.upsert([record(derived)])
    assert (first.added, second.updated, third.unchanged) == (1, 1, 1)
    (node,) = store.get_nodes(["paper:p"])
    assert node is not None
    assert node.properties == {
        "abstract": "Abstract p.",
        "title": "Bandits with Knapsacks",  # a derived title never replaces a listing title
        "titleSource": "LISTING",
        "shortTitle": "Bandits with Knapsacks",
        "sources": ["a.txt:1", "b.jsonl:3"],  # unioned, existing order first
        "year": 2024,  # None never overwrites
        "keywords": ["bandits"],
    }


def test_listing_title_replaces_a_derived_one_within_one_batch(store: GraphStore) -> None:
    derived = paper("p", title="We study bandits", titleSource="DERIVED", sources=["b:1"])
    listing = paper("p", title="Bandits", titleSource="LISTING", sources=["a:1"])
    summary = store.upsert([record(derived), record(listing)])
    assert (summary.added, summary.updated, summary.unchanged) == (1, 1, 0)
    (node,) = store.get_nodes(["paper:p"])
    assert node is not None
    assert (node.properties["title"], node.properties["titleSource"]) == ("Bandits", "LISTING")
    assert node.properties["sources"] == ["a:1", "b:1"]  # union lists are sorted sets (kg.core.merge)


def test_a_change_to_a_shared_node_counts_as_an_update(store: GraphStore) -> None:
    a = author("Ada")
    store.upsert([record(paper("p"), [a]), record(paper("q"), [a])])
    renamed = Node(id=a.id, label="Author", properties={"name": "Ada L."})
    summary = store.upsert([record(paper("p"), [renamed]), record(paper("q"), [renamed])])
    # the first record renames Ada; for the second the name is already "Ada L."
    assert (summary.added, summary.updated, summary.unchanged) == (0, 1, 1)
    # spellings are ranked, not "newest wins": "Ada" is kept as the name, "Ada L." as an alias,
    # and upserting "Ada" again changes nothing (kg.core.merge)
    summary = store.upsert([record(paper("q"), [a])])
    node = store.get_nodes([a.id])[0]
    assert node is not None and summary.unchanged == 1
    assert (node.properties["name"], node.properties["aliases"]) == ("Ada", ["Ada L."])


def test_relationship_properties_merge_and_count_as_updates(store: GraphStore) -> None:
    c = concept("bandits")
    p = paper("p")
    store.upsert([record(p, mentions=[(c, 1.0)])])
    summary = store.upsert([record(p, mentions=[(c, 2.5)])])
    assert summary.updated == 1
    (edges,) = store.neighbors_many([p.id], "MENTIONS")
    assert [e.rel.properties["score"] for e in edges] == [2.5]


def test_union_lists_grow_and_search_follows_new_aliases(store: GraphStore) -> None:
    store.upsert([record(paper("p"), mentions=[(concept("multi-armed bandits", ["MAB"]), 1.0)])])
    store.upsert([record(paper("q"), mentions=[(concept("multi-armed bandits", ["MAB", "zorblax"]), 1.0)])])
    (node,) = store.get_nodes(["concept:multi-armed-bandits"])
    assert node is not None and node.properties["aliases"] == ["MAB", "zorblax"]
    assert [h.node.id for h in store.search("zorblax")] == ["concept:multi-armed-bandits"]


def test_a_discovered_concept_keeps_its_first_name_whatever_the_order(store: GraphStore) -> None:
    def discovered(name: str) -> Node:
        props: Properties = {"name": name, "kind": "METHOD", "aliases": [], "source": "discovered"}
        return Node(id="concept:grape", label="Concept", properties=props)

    first = record(paper("p"), mentions=[(discovered("GRAPE"), 1.0)])
    second = record(paper("q"), mentions=[(discovered("grape"), 1.0)])
    store.upsert([first])
    store.upsert([second])
    (node,) = store.get_nodes(["concept:grape"])
    assert node is not None
    assert (node.properties["name"], node.properties["aliases"]) == ("GRAPE", ["grape"])
    again = store.upsert([second, first])  # the other order changes nothing
    assert (again.added, again.updated, again.unchanged) == (0, 0, 2)
    assert store.get_nodes(["concept:grape"]) == [node]


def test_property_values_round_trip_with_their_types(store: GraphStore) -> None:
    props: Properties = {
        "title": "T",
        "year": 2024,
        "ratio": 0.5,
        "whole": 3.0,
        "authorsTruncated": False,
        "sources": ["a:1", "b:2"],
        "keywords": [],
        "counts": [1, 2],
    }
    store.upsert([record(paper("p", **props))])
    (node,) = store.get_nodes(["paper:p"])
    assert node is not None
    got = node.properties
    assert got == {"abstract": "Abstract p.", **props}
    assert {k: type(v) for k, v in got.items()} == {
        "abstract": str,
        "title": str,
        "year": int,
        "ratio": float,
        "whole": float,
        "authorsTruncated": bool,
        "sources": list,
        "keywords": list,
        "counts": list,
    }
    assert [type(x) for x in got["counts"]] == [int, int]  # type: ignore[union-attr]
    assert "id" not in got


def test_none_values_are_not_stored(store: GraphStore) -> None:
    venue = Node(id="venue:arxiv", label="Venue", properties={"name": "arXiv", "year": None})
    p = paper("p")
    store.upsert(
        [PaperRecord(paper=p, nodes=[venue], relationships=[rel("PUBLISHED_IN", p, venue, note=None)])]
    )
    (node,) = store.get_nodes([venue.id])
    assert node is not None and node.properties == {"name": "arXiv"}
    assert store.relationships("PUBLISHED_IN")[0].properties == {}


def test_relationship_to_a_missing_node_is_an_error(store: GraphStore) -> None:
    p = paper("p")
    ghost = author("Ghost")
    with pytest.raises(GraphStoreError, match="author:ghost"):
        store.upsert([PaperRecord(paper=p, relationships=[rel("AUTHORED", ghost, p, position=1)])])


def test_a_failing_batch_leaves_nothing_behind(store: GraphStore, seed_records: list[PaperRecord]) -> None:
    store.upsert(seed_records[:10])
    before_counts, before = store.counts(), store.export()
    good = record(paper("new"), [author("Ada"), author("Bob")])
    bad = PaperRecord(paper=paper("bad"), relationships=[rel("AUTHORED", author("Ghost"), paper("bad"))])
    with pytest.raises(GraphStoreError):
        store.upsert([*seed_records[10:20], good, bad])
    assert store.counts() == before_counts
    assert store.export() == before


# -- reads by key --------------------------------------------------------------------------------
def test_get_nodes_answers_in_key_order_with_none_for_missing(store: GraphStore) -> None:
    a, b = author("Ada"), author("Bob")
    store.upsert([record(paper("p"), [a, b])])
    assert store.get_nodes([b.id, "author:nobody", a.id, b.id, "paper:p"]) == [
        b,
        None,
        a,
        b,
        paper("p"),
    ]
    assert store.get_nodes([]) == []


def test_nodes_by_label_is_sorted_and_only_that_label(
    store: GraphStore, seed_records: list[PaperRecord]
) -> None:
    store.upsert(seed_records)
    authors = store.nodes_by_label("Author")
    assert len(authors) == SEED_NODES["Author"]
    assert [n.id for n in authors] == sorted(n.id for n in authors)
    assert {n.label for n in authors} == {"Author"}
    assert all("id" not in n.properties for n in authors)


def test_neighbors_many_in_key_order_per_direction(store: GraphStore) -> None:
    a, b, c = author("Ada"), author("Bob"), author("Cy")
    p, q = paper("p"), paper("q")
    store.upsert([record(p, [b, a]), record(q, [a, c])])
    out = store.neighbors_many([c.id, "author:nobody", a.id], "AUTHORED", "out")
    assert [[e.node.id for e in edges] for edges in out] == [[q.id], [], [p.id, q.id]]
    assert all(e.rel.start == a.id and e.rel.type == "AUTHORED" for e in out[2])
    assert [e.rel.properties["position"] for e in out[2]] == [2, 1]

    incoming = store.neighbors_many([p.id, q.id], "AUTHORED", "in")
    assert [[e.node.id for e in edges] for edges in incoming] == [[a.id, b.id], [a.id, c.id]]
    assert all(e.rel.end == p.id for e in incoming[0])
    assert incoming[0][0].node == a  # the node at the other end, with its properties

    assert store.neighbors_many([p.id], "AUTHORED", "out") == [[]]
    both = store.neighbors_many([a.id, b.id], "COAUTHOR", "both")
    assert [[e.node.id for e in edges] for edges in both] == [[b.id, c.id], [a.id]]
    assert both[1][0].rel.start == a.id and both[1][0].rel.end == b.id  # stored smaller id first
    assert store.neighbors_many([], "AUTHORED") == []


def test_degree_many_matches_neighbors(store: GraphStore, seed_records: list[PaperRecord]) -> None:
    store.upsert(seed_records)
    ids = [n.id for n in store.nodes_by_label("Author")][:20] + ["author:nobody"]
    for direction in ("out", "in", "both"):
        for rel_type in ("AUTHORED", "COAUTHOR"):
            degrees = store.degree_many(ids, rel_type, direction)
            neighbors = store.neighbors_many(ids, rel_type, direction)
            assert degrees == [len(n) for n in neighbors]
    assert store.degree_many(["author:nobody"], "AUTHORED") == [0]
    assert sum(store.degree_many(ids[:-1], "AUTHORED", "out")) > 0


def test_relationships_are_sorted_and_export_is_sorted(
    store: GraphStore, seed_records: list[PaperRecord]
) -> None:
    store.upsert(seed_records)
    for rel_type in ("AUTHORED", "MENTIONS", "COAUTHOR"):
        rels = store.relationships(rel_type)
        assert rels and {r.type for r in rels} == {rel_type}
        assert [(r.start, r.end) for r in rels] == sorted((r.start, r.end) for r in rels)
        assert len(rels) == store.counts().relationships[rel_type]
    graph = store.export()
    assert [n.id for n in graph.nodes] == sorted(n.id for n in graph.nodes)
    keys = [(r.type, r.start, r.end) for r in graph.relationships]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    concepts = [n for n in graph.nodes if n.label == "Concept"]
    assert concepts and all({"name", "kind", "aliases"} <= set(n.properties) for n in concepts)
    assert all("id" not in n.properties for n in graph.nodes)
    assert all(n.properties.get("abstract") for n in graph.nodes if n.label == "Paper")


# -- derived relationships -----------------------------------------------------------------------
def score(mention: Relationship) -> float:
    value = mention.properties.get("score")
    return float(value) if isinstance(value, int | float) else 0.0


def expected_pairs(records: list[PaperRecord]) -> tuple[Counter[tuple[str, str]], Counter[tuple[str, str]]]:
    """COAUTHOR and CO_OCCURS weights straight from the rules in kg/core/derived.py (unique papers).

    Only concepts that are nodes count: a provisional one (kg/core/provisional.py) carried by a
    single paper is not, unless its paper names it in the title or first sentence and is about
    it (``earns_node``) or another record carries it as a node, and so takes no place in that
    paper's top set.
    """
    carriers: Counter[str] = Counter(
        n.id for r in records for n in r.nodes if n.label == "Concept" and n.properties.get("provisional")
    )
    earned = {
        x.end
        for r in records
        for n in r.nodes
        for x in r.relationships
        if x.type == "MENTIONS"
        and x.end == n.id
        and n.properties.get("provisional")
        and earns_node(r.paper.properties, n.properties, x.properties)
    }
    # a concept another record carries as a node (a head parent: extractors/concepts/analysis/heads.py)
    solid = {
        n.id for r in records for n in r.nodes if n.label == "Concept" and not n.properties.get("provisional")
    }
    hidden = {cid for cid, k in carriers.items() if k < 2 and cid not in earned and cid not in solid}
    coauthor: Counter[tuple[str, str]] = Counter()
    cooccurs: Counter[tuple[str, str]] = Counter()
    for r in records:
        authors = {x.start for x in r.relationships if x.type == "AUTHORED"}
        mentions = [
            (x.end, score(x)) for x in r.relationships if x.type == "MENTIONS" and x.end not in hidden
        ]
        top = {cid for cid, _ in sorted(mentions, key=lambda m: (-m[1], m[0]))[:CO_OCCURS_TOP_K]}
        coauthor.update(itertools.combinations(sorted(authors), 2))
        cooccurs.update(itertools.combinations(sorted(top), 2))
    return coauthor, cooccurs


def test_derived_weights_follow_the_rules(store: GraphStore, seed_records: list[PaperRecord]) -> None:
    assert len({r.paper.id for r in seed_records}) == len(seed_records)
    store.upsert(seed_records)
    coauthor, cooccurs = expected_pairs(seed_records)
    assert weights(store, "COAUTHOR") == dict(coauthor)
    assert weights(store, "CO_OCCURS") == dict(cooccurs)
    assert weights(store, "COAUTHOR")[("author:abhishek-panigrahi", "author:sanjeev-arora")] == 2
    store.upsert(seed_records)
    assert weights(store, "COAUTHOR") == dict(coauthor)  # re-ingest bumps nothing


def test_coauthor_weights_grow_only_for_new_pairs(store: GraphStore) -> None:
    a, b, c = author("A"), author("B"), author("C")
    store.upsert([record(paper("p"), [a, b])])
    store.upsert([record(paper("p"), [a, b, c]), record(paper("q"), [b, a])])
    assert weights(store, "COAUTHOR") == {(a.id, b.id): 2, (a.id, c.id): 1, (b.id, c.id): 1}
    store.upsert([record(paper("p"), [c])])  # authors only accumulate; nothing new
    assert weights(store, "COAUTHOR") == {(a.id, b.id): 2, (a.id, c.id): 1, (b.id, c.id): 1}


def test_cooccurs_pairs_come_from_the_top_scored_mentions(store: GraphStore) -> None:
    concepts = [concept(f"c{i}") for i in range(CO_OCCURS_TOP_K + 1)]
    scored = [(c, float(10 - i)) for i, c in enumerate(concepts)]  # the last one scores lowest
    store.upsert([record(paper("p"), mentions=scored)])
    top = sorted(c.id for c in concepts[:-1])
    assert weights(store, "CO_OCCURS") == dict.fromkeys(itertools.combinations(top, 2), 1)
    # the low one now scores best: it joins the top set, pushing the weakest (c7) out, and only
    # its pairs with the concepts still in the top set are new
    store.upsert([record(paper("p"), mentions=[(concepts[-1], 100.0)])])
    w = weights(store, "CO_OCCURS")
    low, pushed_out = concepts[-1].id, concepts[-2].id
    assert {pair for pair in w if low in pair} == {(c.id, low) for c in concepts[:-2]}
    assert (pushed_out, low) not in w
    assert set(w.values()) == {1}  # nothing counted twice


# -- search --------------------------------------------------------------------------------------
def test_search_finds_nash_equilibria_papers_and_ranks_name_hits_high(
    store: GraphStore, seed_records: list[PaperRecord]
) -> None:
    store.upsert(seed_records)
    nash_papers = {
        r.paper.id for r in seed_records if "nash equilibria" in fold(str(r.paper.properties["abstract"]))
    }
    assert nash_papers
    hits = store.search("Nash equilibria", limit=50)
    assert nash_papers <= {h.node.id for h in hits}
    assert {h.node.label for h in hits} <= {"Paper", "Concept"}
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    top = hits[0].node.properties
    assert "nash" in fold(str(top.get("name") or top.get("title")))
    assert len(store.search("Nash equilibria", limit=3)) == 3


def test_search_ranks_a_title_hit_above_an_abstract_mention(store: GraphStore) -> None:
    store.upsert(
        [
            record(
                paper(
                    "a", title="Notes on optimisation", abstract="We study zorblax in passing among others."
                )
            ),
            record(paper("b", title="Zorblax", abstract="An unrelated abstract about optimisation.")),
        ]
    )
    assert [h.node.id for h in store.search("zorblax")] == ["paper:b", "paper:a"]


def test_search_leaves_stop_words_out(store: GraphStore, seed_records: list[PaperRecord]) -> None:
    """Both stores drop the same stop words (Lucene's English list, kg.core.text_index.STOP_WORDS):
    a word in nearly every abstract must not decide what matches, nor cost a scan of them all."""
    store.upsert(seed_records)
    plain = [h.node.id for h in store.search("Nash equilibria", limit=10)]
    assert plain
    assert [h.node.id for h in store.search("the Nash equilibria of a game", limit=10)] != []
    assert [h.node.id for h in store.search("on the Nash with equilibria", limit=10)] == plain
    assert [h.node.id for h in store.search("Nash equilibria", limit=10, every_word=True)] == [
        h.node.id for h in store.search("the Nash and equilibria", limit=10, every_word=True)
    ]
    assert store.search("to be or not to be") == []


def test_search_without_words_or_hits_is_empty(store: GraphStore, seed_records: list[PaperRecord]) -> None:
    store.upsert(seed_records)
    assert store.search("") == []
    assert store.search('?!*"(') == []
    assert store.search("qwzxv") == []


# -- lifecycle -----------------------------------------------------------------------------------
def test_clear_empties_the_store_and_it_stays_usable(
    store: GraphStore, seed_records: list[PaperRecord]
) -> None:
    store.upsert(seed_records)
    store.clear()
    assert store.counts().nodes == dict.fromkeys(LABELS, 0)
    assert store.counts().relationships == dict.fromkeys(REL_TYPES, 0)
    assert store.export().nodes == []
    assert store.search("Nash equilibria") == []
    assert store.upsert(seed_records).added == 58
    assert store.search("Nash equilibria")


def _second_store(store: GraphStore, request: pytest.FixtureRequest) -> GraphStore:
    """Another store over the same data, with its own connection (and driver) to close."""
    from kg.stores.sqlite import SQLiteStore

    if isinstance(store, SQLiteStore):
        return SQLiteStore(Path(store.path).parent)
    import neo4j

    from kg.stores.neo4j.store import Neo4jStore
    from tests.conftest import neo4j_uri

    request.getfixturevalue("neo4j_driver")  # the server is up and reachable
    password = os.environ.get("KG_TEST_NEO4J_PASSWORD", "")
    user = os.environ.get("KG_TEST_NEO4J_USER", "neo4j")
    driver = neo4j.GraphDatabase.driver(neo4j_uri(), auth=(user, password) if password else None)
    return Neo4jStore(driver, owns_driver=True)


def test_ping_answers_and_flush_leaves_every_write_readable_elsewhere(
    store: GraphStore, seed_records: list[PaperRecord], request: pytest.FixtureRequest
) -> None:
    """``ping`` returns on a working store and raises once it cannot answer; after ``flush``
    another connection to the same data reads every upsert."""
    store.ping()  # raises when the store cannot answer (checked below)
    store.upsert(seed_records)
    store.flush()
    other = _second_store(store, request)
    try:
        other.ping()
        assert other.counts() == store.counts()
        assert other.counts().nodes["Paper"] == len({r.paper.id for r in seed_records})
    finally:
        other.close()
    with pytest.raises(GraphStoreError):
        other.ping()  # closed: its connection (Neo4j: its driver) is gone


def test_iterated_export_is_the_export(store: GraphStore, seed_records: list[PaperRecord]) -> None:
    """``kg export`` streams through these: the same elements in the same order as export()."""
    store.upsert(seed_records)
    store.flush()
    graph = store.export()
    assert list(store.iter_nodes()) == graph.nodes
    by_start = sorted(graph.relationships, key=lambda r: (r.start, r.type, r.end))
    assert list(store.iter_relationships()) == by_start
