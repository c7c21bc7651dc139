"""Institutions from the listings' ``aff`` / ``aff_domain``, on both stores, in any order.

The listings are written here in the paperlists format so each case sits next to its assertion:

- Carnegie Mellon is printed three ways: "Carnegie Mellon University" with domain ``cmu.edu``
  (twice), "CMU" with the same domain, and "Carnegie Mellon University" without one: one
  institution, keyed by its domain, named by its most frequent variant;
- "University of Oxford" and "university of oxford," fold to one name (no domain: keyed by it);
- Ada Lovelace gives Oxford in 2019 and 2022 (``years``), and an id-less Ada slot (ICML 2019,
  with Charles Babbage) is resolved to her profile: its affiliation follows her, whichever file
  comes first;
- a record whose ``aff`` does not align with its authors gives no affiliation at all, and an
  ``aff_domain`` that does not align is ignored (the names still count).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from kg.authors.institutions import build, derive, graph_digest, slots_from_rows, sync
from kg.core.models import Graph
from kg.ingest.job import ingest
from kg.ingest.pipeline import Pipeline
from kg.stores.protocol import GraphStore
from tests.paperlists_listings import paperlists_record, write_listings

ADA = "author:openreview:~Ada_Lovelace1"
BABBAGE = "author:openreview:~Charles_Babbage1"
HOPPER = "author:openreview:~Grace_Hopper1"
CMU = "institution:cmu.edu"
OXFORD = "institution:university of oxford"


LISTINGS: dict[str, list[dict[str, Any]]] = {
    "corl2022.json": [
        paperlists_record(
            "a1",
            "Analytical engines for robot control",
            ["Ada Lovelace", "Charles Babbage"],
            ["~Ada_Lovelace1", "~Charles_Babbage1"],
            ["University of Oxford", "Carnegie Mellon University"],
            ["", "cmu.edu"],
        ),
        paperlists_record(
            "g1",
            "Compilers for robot programs",
            ["Grace Hopper", "Charles Babbage"],
            ["~Grace_Hopper1", "~Charles_Babbage1"],
            ["CMU", "Carnegie Mellon University + University of Oxford"],
            ["cmu.edu", "cmu.edu"],  # the second slot: one domain for two names, ignored
        ),
    ],
    "iclr2018.json": [
        paperlists_record(
            "g2",
            "Debugging recurrent networks",
            ["Grace Hopper"],
            ["~Grace_Hopper1"],
            ["Carnegie Mellon University"],
            ["cmu.edu"],
        ),
        paperlists_record(  # three authors, two affiliations: nothing is pinned on anyone
            "m1",
            "Misaligned affiliations",
            ["Grace Hopper", "Ada Lovelace", "Charles Babbage"],
            ["~Grace_Hopper1", "~Ada_Lovelace1", "~Charles_Babbage1"],
            ["Nowhere Institute", "Elsewhere Lab"],
        ),
    ],
    "icml2019.json": [
        paperlists_record(
            "a3",
            "Notes on the analytical engine",
            ["Charles Babbage", "Ada Lovelace"],
            ["", ""],
            ["", "university of oxford,"],
        ),
    ],
}


@pytest.fixture(scope="module")
def pipeline(nlp_fast: Any) -> Pipeline:
    return Pipeline(nlp=nlp_fast)


def _institutions(graph: Graph) -> dict[str, dict[str, Any]]:
    return {n.id: dict(n.properties) for n in graph.nodes if n.label == "Institution"}


def _affiliations(graph: Graph) -> dict[tuple[str, str], list[int]]:
    out: dict[tuple[str, str], list[int]] = {}
    for r in graph.relationships:
        if r.type == "AFFILIATED_WITH":
            years = r.properties["years"]
            assert isinstance(years, list)
            out[(r.start, r.end)] = [int(y) for y in years]
    return out


EXPECTED_AFFILIATIONS = {
    (ADA, OXFORD): [2019, 2022],
    (BABBAGE, CMU): [2022],
    (BABBAGE, OXFORD): [2022],
    (HOPPER, CMU): [2018, 2022],
}


def test_variants_merge_and_years_follow_the_papers(
    store: GraphStore, pipeline: Pipeline, tmp_path: Path
) -> None:
    ingest(write_listings(tmp_path / "in", LISTINGS), store, pipeline, jobs=1)
    graph = store.export()
    assert _institutions(graph) == {
        CMU: {"name": "Carnegie Mellon University", "aliases": ["CMU"], "domain": "cmu.edu"},
        OXFORD: {"name": "University of Oxford", "aliases": ["university of oxford,"]},
    }
    assert _affiliations(graph) == EXPECTED_AFFILIATIONS
    assert store.counts().nodes["Institution"] == 2
    assert store.counts().relationships["AFFILIATED_WITH"] == 4
    # the generic reads see the new label and type like any other
    (edges,) = store.neighbors_many([CMU], "AFFILIATED_WITH", "in")
    assert sorted(e.node.id for e in edges) == [BABBAGE, HOPPER]


@pytest.mark.parametrize("order", ["reverse", "one-file-per-ingest", "idless-first"])
def test_same_institutions_for_any_order_and_a_reingest_changes_nothing(
    store: GraphStore, pipeline: Pipeline, tmp_path: Path, order: str
) -> None:
    paths = write_listings(tmp_path / "in", LISTINGS)
    ingest(paths, store, pipeline, jobs=1)
    together = store.export()
    store.clear()
    runs: Sequence[Sequence[Path]]
    if order == "reverse":
        runs = [paths[::-1]]
    elif order == "one-file-per-ingest":
        runs = [[p] for p in paths[::-1]]
    else:  # the id-less Ada slot first: name-keyed, then moved to her profile with its affiliation
        idless = [p for p in paths if p.name == "icml2019.json"]
        runs = [idless, [p for p in paths if p not in idless]]
    for i, run in enumerate(runs):
        ingest(list(run), store, pipeline, jobs=1)
        if order == "idless-first" and i == 0:
            assert _affiliations(store.export()) == {("author:ada-lovelace", OXFORD): [2019]}
    graph = store.export()
    assert graph == together
    assert _affiliations(graph) == EXPECTED_AFFILIATIONS
    version = store.version()
    report = ingest(paths, store, pipeline, jobs=1)
    assert (report.summary.added, report.summary.updated) == (0, 0)
    assert store.version() == version


def test_an_ingest_that_writes_no_affiliation_does_not_derive_them_again(
    store: GraphStore, pipeline: Pipeline, tmp_path: Path
) -> None:
    """Deriving reads every affiliation of the store (80% of adding 10 papers at 100k). An ingest
    that wrote none, updated no paper and moved no slot skips it, but only when the graph was
    derived at the version that ingest started from: any other write since (here a replaced
    institution graph, as an ingest stopped before its last step would leave) derives it again."""
    ingest(write_listings(tmp_path / "in", LISTINGS), store, pipeline, jobs=1)
    expected = store.export()
    assert store.institutions_synced_at() == store.version()

    def plain_papers(name: str, titles: list[str]) -> list[Path]:
        rows = [
            paperlists_record(f"{name}{i}", t, ["Grace Hopper"], ["~Grace_Hopper1"])
            for i, t in enumerate(titles)
        ]
        return write_listings(tmp_path / name, {f"{name}.json": rows})

    report = ingest(plain_papers("p", ["Sorting networks", "Tape drives"]), store, pipeline, jobs=1)
    assert report.summary.added == 2 and report.institutions is not None
    assert not report.institutions.derived and not report.institutions.changed
    assert (report.institutions.institutions, report.institutions.affiliations) == (2, 4)
    assert "this ingest wrote no affiliation" in report.institutions.line()
    assert _affiliations(store.export()) == EXPECTED_AFFILIATIONS
    assert store.institutions_synced_at() == store.version()

    store.replace_institutions([], [])  # a write the last derivation did not see
    report = ingest(plain_papers("q", ["Magnetic cores"]), store, pipeline, jobs=1)
    assert report.institutions is not None and report.institutions.derived and report.institutions.changed
    assert _institutions(store.export()) == _institutions(expected)
    assert _affiliations(store.export()) == EXPECTED_AFFILIATIONS

    listing = {
        "new.json": [
            paperlists_record(
                "n1", "Harvard Mark I", ["Grace Hopper"], ["~Grace_Hopper1"], ["Harvard University"]
            )
        ]
    }
    report = ingest(write_listings(tmp_path / "new", listing), store, pipeline, jobs=1)
    assert report.institutions is not None and report.institutions.derived and report.institutions.changed
    assert (HOPPER, "institution:harvard university") in _affiliations(store.export())


def test_build_is_a_function_of_the_set_of_slots() -> None:
    rows: list[tuple[str, str, object, object]] = [
        ("author:a", "paper:1", 2020, ["MIT <mit.edu>"]),
        ("author:b", "paper:2", 2021, ["Massachusetts Institute of Technology <mit.edu>"]),
        ("author:b", "paper:3", 2019, ["Massachusetts Institute of Technology"]),
        ("author:c", "paper:4", None, ["ETH Zurich"]),
        ("author:c", "paper:5", 2020, "not a list"),
    ]
    first = build(slots_from_rows(rows))
    assert build(slots_from_rows(rows[::-1])) == first
    nodes, rels = first
    assert [(n.id, n.properties["name"]) for n in nodes] == [
        ("institution:eth zurich", "ETH Zurich"),
        ("institution:mit.edu", "Massachusetts Institute of Technology"),
    ]
    assert [(r.start, r.end, r.properties["years"]) for r in rels] == [
        ("author:a", "institution:mit.edu", [2020]),
        ("author:b", "institution:mit.edu", [2019, 2021]),
        ("author:c", "institution:eth zurich", []),
    ]


def test_reads_find_institutions_their_authors_and_papers(
    store: GraphStore, pipeline: Pipeline, tmp_path: Path
) -> None:
    from kg.read.errors import UnknownName
    from kg.read.service import PaperFilter, ReadService
    from kg.stores.protocol import ReadStore

    assert isinstance(store, ReadStore)
    ingest(write_listings(tmp_path / "in", LISTINGS), store, pipeline, jobs=1)
    service = ReadService(store, refresh_interval_s=0)
    for name in ("Carnegie Mellon University", "carnegie-mellon university", "CMU", "cmu.edu", CMU):
        found = service.resolve_institution(name)
        assert found is not None and found.id == CMU, name
    oxford = service.resolve_institution("UNIVERSITY OF OXFORD")
    assert oxford is not None and oxford.id == OXFORD
    assert service.resolve_institution("Nowhere Institute") is None  # its record did not align
    members = [(a.node.id, len(a.papers), list(a.years)) for a in service.institution_members(CMU)]
    assert members == [(BABBAGE, 2, [2022]), (HOPPER, 2, [2018, 2022])]  # a tie: by name
    page = service.papers(service.paper_query(PaperFilter(institution="cmu.edu")), 0, 10)
    titles = [n.properties["title"] for n in store.get_nodes(page.ids) if n is not None]
    # newest first, then by title
    assert titles == [
        "Analytical engines for robot control",
        "Compilers for robot programs",
        "Debugging recurrent networks",
    ]
    assert page.total == 3
    both = service.paper_query(PaperFilter(institution="University of Oxford", year=2019))
    assert service.papers(both, 0, 10).total == 1
    ada = [(a.node.id, list(a.years)) for a in service.author_institutions(ADA)]
    assert ada == [(OXFORD, [2019, 2022])]
    with pytest.raises(UnknownName, match="unknown institution 'Atlantis'"):
        service.paper_query(PaperFilter(institution="Atlantis"))


def _derived_digest(store: GraphStore) -> str:
    return graph_digest(*derive(slots_from_rows(store.affiliation_rows())))


def test_the_stored_digest_describes_what_is_stored_now(
    store: GraphStore, pipeline: Pipeline, tmp_path: Path
) -> None:
    """sync compares digests; the stored side is computed from the stored rows on every call, so
    no write, by sync or anything else, can leave a digest behind that hides a difference."""
    assert store.institutions_digest() == graph_digest([], []) == "0:0:" + "0" * 64
    ingest(write_listings(tmp_path / "in", LISTINGS), store, pipeline, jobs=1)
    assert store.institutions_digest() == _derived_digest(store)
    assert not sync(store).changed

    graph = store.export()
    nodes = [n for n in graph.nodes if n.label == "Institution"]
    rels = [r for r in graph.relationships if r.type == "AFFILIATED_WITH"]
    years_moved = [
        r.model_copy(update={"properties": {**r.properties, "years": [2023]}}) if r.start == ADA else r
        for r in rels
    ]
    first_only = [r for r in rels if r.end == nodes[0].id]  # one institution gone
    renamed = [n.model_copy(update={"properties": {**n.properties, "aliases": []}}) for n in nodes]
    for tampered in ((nodes, rels[1:]), (nodes, years_moved), (renamed, rels), (nodes[:1], first_only)):
        store.replace_institutions(*tampered)
        assert store.institutions_digest() == graph_digest(
            [(n.id, n.properties) for n in tampered[0]], [(r.start, r.end, r.properties) for r in tampered[1]]
        )
        assert store.institutions_digest() != _derived_digest(store)
        before = store.version()
        assert sync(store).changed
        assert store.version() > before
        assert store.export() == graph  # exactly the derived graph again
        version = store.version()
        assert not sync(store).changed  # and written only when it differs
        assert store.version() == version


def test_the_digest_of_any_ids_is_the_same_on_both_stores(
    store: GraphStore, pipeline: Pipeline, tmp_path: Path
) -> None:
    """Order-independent: Neo4j sorts strings by UTF-16 units, Python by code points, and a
    supplementary character (an emoji) sorts differently in the two; the digest does not care."""
    from kg.core.models import Node, Relationship

    ingest(write_listings(tmp_path / "in", LISTINGS), store, pipeline, jobs=1)  # the authors
    names = ["Lab \U0001f600", "Lab \uffff", "Lab a"]
    nodes = [
        Node(id="institution:" + n.lower(), label="Institution", properties={"name": n, "aliases": []})
        for n in names
    ]
    props: dict[str, Any] = {"years": [2020], "papers": ["paper:1"]}
    rels = [
        Relationship(type="AFFILIATED_WITH", start=a, end=n.id, properties=props)
        for a in (ADA, BABBAGE)
        for n in nodes
    ]
    store.replace_institutions(nodes[::-1], rels[::-1])
    expected = graph_digest(
        [(n.id, n.properties) for n in nodes], [(r.start, r.end, r.properties) for r in rels]
    )
    assert store.institutions_digest() == expected
    assert store.institutions_digest().startswith("3:6:")


def test_graph_digest_ignores_order_and_sees_every_difference() -> None:
    nodes = [
        ("institution:a", {"name": "A", "aliases": []}),
        ("institution:b", {"name": "B", "aliases": ["b"]}),
    ]
    rels = [("author:x", "institution:a", {"years": [2020], "papers": ["paper:1"]})]
    digest = graph_digest(nodes, rels)
    assert graph_digest(nodes[::-1], rels) == digest
    assert graph_digest([(i, dict(reversed(p.items()))) for i, p in nodes], rels) == digest  # key order
    assert graph_digest(nodes + nodes[:1], rels) != digest  # a duplicate counts
    assert graph_digest(nodes[:1], rels) != digest
    assert graph_digest(nodes, []) != digest
    # the same items moved between nodes and relationships, or a paper to another author
    assert (
        graph_digest(nodes, [("author:y", "institution:a", {"years": [2020], "papers": ["paper:1"]})])
        != digest
    )
    assert (
        graph_digest(nodes, [("author:x", "institution:a", {"years": [2020], "papers": ["paper:2"]})])
        != digest
    )
