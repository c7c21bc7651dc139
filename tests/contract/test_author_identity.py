"""One researcher, one Author: resolution rules with their evidence, on both stores, in any order.

The listings are written here in the paperlists format (``author``/``authorids``/``aff`` aligned,
``;``-separated) so each case is visible next to its assertion:

- Ada Lovelace has an OpenReview profile (CoRL 2022), an old email id (ICLR 2018, with Charles
  Babbage) and id-less papers (ICML 2019 with Babbage; NeurIPS 2019 at her affiliation);
- two people named Jian Zhang have profiles ``~Jian_Zhang1`` (with Banghua Zhu) and
  ``~Jian_Zhang3`` (with Nicu Sebe); an id-less Jian Zhang with Nicu Sebe is the second, one with
  both Banghua Zhu and Nicu Sebe is split evidence and stays name-keyed, like one with neither.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from kg.authors.resolution import Slot, resolve
from kg.core.models import Graph
from kg.ingest.job import ingest
from kg.ingest.pipeline import Pipeline
from kg.stores.protocol import GraphStore, ReadStore
from tests.paperlists_listings import paperlists_record, write_listings

ADA = "author:openreview:~Ada_Lovelace1"
BABBAGE = "author:openreview:~Charles_Babbage1"
ZHANG1 = "author:openreview:~Jian_Zhang1"
ZHANG3 = "author:openreview:~Jian_Zhang3"
ZHANG_BY_NAME = "author:jian-zhang"


LISTINGS: dict[str, list[dict[str, Any]]] = {
    "corl2022.json": [
        paperlists_record(
            "a1",
            "Analytical engines for robot control",
            ["Ada Lovelace", "Charles Babbage"],
            ["~Ada_Lovelace1", "~Charles_Babbage1"],
            ["University of London", "Cambridge"],
        ),
        paperlists_record(
            "z1", "Starling preference data", ["Banghua Zhu", "Jian Zhang"], ["~Banghua_Zhu1", "~Jian_Zhang1"]
        ),
    ],
    "iclr2018.json": [
        paperlists_record(
            "a2",
            "Difference engines as recurrent networks",
            ["Ada Lovelace", "Charles Babbage"],
            ["ada@example.org", "~Charles_Babbage1"],
        ),
    ],
    "3dv2025.json": [
        paperlists_record(
            "z3",
            "Cross attention for point clouds",
            ["Nicu Sebe", "Jian Zhang"],
            ["~Nicu_Sebe1", "~Jian_Zhang3"],
        ),
    ],
    "icml2019.json": [
        paperlists_record(
            "a3", "Notes on the analytical engine", ["Charles Babbage", "Ada Lovelace"], ["", ""]
        ),
        paperlists_record("z4", "Image denoising with point priors", ["Jian Zhang", "Nicu Sebe"], ["", ""]),
        paperlists_record(
            "z5",
            "Preference models meet point clouds",
            ["Jian Zhang", "Banghua Zhu", "Nicu Sebe"],
            ["", "", ""],
        ),
        paperlists_record("z6", "Adaptive soft thresholding", ["Jian Zhang", "Wen Gao"], ["", ""]),
    ],
    "nips2019.json": [
        paperlists_record(
            "a4",
            "Bernoulli numbers by machine",
            ["Ada Lovelace", "Mary Somerville"],
            ["", ""],
            ["University of London", "Oxford"],
        ),
    ],
}


@pytest.fixture(scope="module")
def pipeline(nlp_fast: Any) -> Pipeline:
    return Pipeline(nlp=nlp_fast)


def _authors(graph: Graph) -> dict[str, set[str]]:
    """Author id -> titles of its papers."""
    titles = {n.id: str(n.properties["title"]) for n in graph.nodes if n.label == "Paper"}
    out: dict[str, set[str]] = {n.id: set() for n in graph.nodes if n.label == "Author"}
    for r in graph.relationships:
        if r.type == "AUTHORED":
            out[r.start].add(titles[r.end])
    return out


def _props(graph: Graph, node_id: str) -> dict[str, Any]:
    return next(n.properties for n in graph.nodes if n.id == node_id)


def test_each_rule_joins_with_its_evidence(store: GraphStore, pipeline: Pipeline, tmp_path: Path) -> None:
    ingest(write_listings(tmp_path / "in", LISTINGS), store, pipeline, jobs=1)
    graph = store.export()
    authors = _authors(graph)
    assert authors[ADA] == {
        "Analytical engines for robot control",  # profile
        "Difference engines as recurrent networks",  # email id, shared co-author Babbage
        "Notes on the analytical engine",  # no id, shared co-author Babbage
        "Bernoulli numbers by machine",  # no id, no shared co-author: same affiliation
    }
    ada = _props(graph, ADA)
    assert ada["name"] == "Ada Lovelace"
    ids = ada["externalIds"]
    assert (
        isinstance(ids, list)
        and "openreview:~Ada_Lovelace1" in ids
        and any(i.startswith("email:") for i in ids)
    )
    evidence = ada["mergeEvidence"]
    assert isinstance(evidence, list)
    assert any(
        "joined openreview:~Ada_Lovelace1: same name, shared co-authors charles-babbage" in e
        for e in evidence
    )
    assert "1 paper(s) without ids joined by shared co-authors (charles-babbage)" in evidence
    assert "1 paper(s) without ids joined by shared affiliation (university of london)" in evidence
    # namesakes with different profile ids stay apart; the id-less ones go where evidence points
    assert authors[ZHANG1] == {"Starling preference data"}
    assert authors[ZHANG3] == {"Cross attention for point clouds", "Image denoising with point priors"}
    assert authors[ZHANG_BY_NAME] == {"Preference models meet point clouds", "Adaptive soft thresholding"}
    assert _props(graph, ZHANG_BY_NAME)["mergeEvidence"] == [
        "kept apart: 1 paper(s) whose co-authors or venue point to several people"
    ]
    # one node per person: no leftover email- or name-keyed Ada
    assert [a for a in authors if "lovelace" in a.lower()] == [ADA]


def test_coauthor_pairs_follow_the_people(store: GraphStore, pipeline: Pipeline, tmp_path: Path) -> None:
    ingest(write_listings(tmp_path / "in", LISTINGS), store, pipeline, jobs=1)
    pairs = {(r.start, r.end): r.properties["papers"] for r in store.relationships("COAUTHOR")}
    assert pairs[(ADA, BABBAGE)] == 3


def _export(store: GraphStore) -> Graph:
    return store.export()


@pytest.mark.parametrize("order", ["forward", "reverse", "one-file-per-ingest", "profiles-last"])
def test_same_people_for_any_order_and_batching(
    store: GraphStore, pipeline: Pipeline, tmp_path: Path, order: str
) -> None:
    paths = write_listings(tmp_path / "in", LISTINGS)
    ingest(paths, store, pipeline, jobs=1)
    together = store.export()
    store.clear()
    runs: Sequence[Sequence[Path]]
    if order == "forward":
        runs = [paths]
    elif order == "reverse":
        runs = [paths[::-1]]
    elif order == "one-file-per-ingest":
        runs = [[p] for p in paths[::-1]]
    else:  # the id-less papers first: their slots are re-pointed when the profiles arrive
        idless = [p for p in paths if p.name in ("icml2019.json", "nips2019.json")]
        runs = [idless, [p for p in paths if p not in idless]]
    for run in runs:
        ingest(list(run), store, pipeline, jobs=1)
    assert store.export() == together
    version = store.version()
    report = ingest(paths[::-1], store, pipeline, jobs=1)  # and a re-ingest changes nothing
    assert (report.summary.added, report.summary.updated) == (0, 0)
    assert store.version() == version


def test_the_profile_arriving_later_re_points_stored_slots(
    store: GraphStore, pipeline: Pipeline, tmp_path: Path
) -> None:
    paths = {p.name: p for p in write_listings(tmp_path / "in", LISTINGS)}
    ingest([paths["icml2019.json"]], store, pipeline, jobs=1)
    before = _authors(store.export())
    assert "author:ada-lovelace" in before and ZHANG_BY_NAME in before  # nothing to join yet
    ingest([paths["corl2022.json"], paths["3dv2025.json"]], store, pipeline, jobs=1)
    after = _authors(store.export())
    assert "author:ada-lovelace" not in after  # moved to the profile, and the empty node deleted
    assert "Notes on the analytical engine" in after[ADA]
    assert after[ZHANG3] == {"Cross attention for point clouds", "Image denoising with point priors"}
    assert store.counts().nodes["Author"] == len(after)


def test_resolution_is_a_function_of_the_set_of_slots() -> None:
    slots = [
        Slot("p1", "Ada Lovelace", ("openreview:~Ada_Lovelace1",), frozenset({"author:charles-babbage"})),
        Slot("p2", "Ada Lovelace", ("email:aa",), frozenset({"author:charles-babbage"})),
        Slot("p3", "Ada Lovelace", (), frozenset({"author:charles-babbage"})),
        Slot("p4", "Ada Lovelace", ("openreview:~Ada_Lovelace2",), frozenset({"author:alan-turing"})),
        Slot("p5", "Ada Lovelace", (), frozenset({"author:alan-turing", "author:charles-babbage"})),
    ]
    first = resolve(slots)
    assert first.person_of == resolve(slots[::-1]).person_of
    assert {k[0]: v for k, v in first.person_of.items()} == {
        "p1": ADA,
        "p2": ADA,
        "p3": ADA,
        "p4": "author:openreview:~Ada_Lovelace2",
        "p5": "author:ada-lovelace",  # co-authors of both profiles: split, kept apart
    }


def test_api_shows_people_namesakes_ids_and_evidence(
    store: ReadStore, pipeline: Pipeline, tmp_path: Path
) -> None:
    """Through HTTP on both stores: ``author(name:)`` is the person with most papers, the others
    are ``namesakes``; ids are accepted wherever a name is."""
    import httpx

    from api.app import create_app
    from kg.core.config import Settings
    from tests.api.conftest import post, serve

    ingest(write_listings(tmp_path / "in", LISTINGS), store, pipeline, jobs=1)
    with serve(create_app(Settings(), store=store)) as server, httpx.Client(base_url=server.url) as client:
        fields = "id name paperCount aliases externalIds mergeEvidence namesakes { id paperCount }"
        body = post(client, f'{{ author(name: "jian ZHANG") {{ {fields} }} }}')
        top = body["data"]["author"]
        people = [top, *top["namesakes"]]
        assert {p["id"] for p in people} == {ZHANG1, ZHANG3, ZHANG_BY_NAME}
        assert top["paperCount"] == max(p["paperCount"] for p in people)
        ada = post(client, f'{{ author(name: "Ada Lovelace") {{ {fields} }} }}')["data"]["author"]
        assert ada["id"] == ADA and ada["paperCount"] == 4 and ada["namesakes"] == []
        assert "openreview:~Ada_Lovelace1" in ada["externalIds"]
        assert any("shared co-authors" in e for e in ada["mergeEvidence"])
        by_id = post(client, f'{{ author(name: "{ZHANG1}") {{ id }} }}')["data"]["author"]
        assert by_id == {"id": ZHANG1}
        papers = post(
            client,
            "query($a: String) { papers(where: {author: $a}) { totalCount edges { node { title } } } }",
            {"a": ZHANG3},
        )["data"]["papers"]
        assert papers["totalCount"] == 2
        network = post(
            client, "query($a: String!) { coauthorNetwork(author: $a) { nodes { id } } }", {"a": ZHANG1}
        )["data"]["coauthorNetwork"]
        assert {n["id"] for n in network["nodes"]} == {ZHANG1, "author:openreview:~Banghua_Zhu1"}
        path = post(
            client,
            "query($a: String!, $b: String!) "
            "{ collaborationPath(from: $a, to: $b) { length authors { id } } }",
            {"a": ADA, "b": "Charles Babbage"},
        )["data"]["collaborationPath"]
        assert path == {"length": 1, "authors": [{"id": ADA}, {"id": BABBAGE}]}


def _paper_id(graph: Graph, title: str) -> str:
    return next(n.id for n in graph.nodes if n.label == "Paper" and n.properties.get("title") == title)


def test_curations_apply_at_once_and_survive_a_rebuild_in_another_order(
    store: GraphStore, pipeline: Pipeline, tmp_path: Path
) -> None:
    from api.curate_cli import apply_now
    from kg.curation.decisions import Curation, load, record, split_id

    paths = write_listings(tmp_path / "in", LISTINGS)
    ingest(paths, store, pipeline, jobs=1)
    denoising = _paper_id(store.export(), "Image denoising with point priors")
    file = tmp_path / "curations.jsonl"
    decisions = [
        Curation("merge-authors", (ZHANG1, ZHANG_BY_NAME)),
        Curation("split-author", (ZHANG3,), (denoising,)),
        Curation("rename-author", (ADA,), name="Augusta Ada King"),
    ]
    for c in decisions:
        apply_now(store, c, [*load(file), c])
        record(file, c)
    curated = store.export()
    authors = _authors(curated)
    assert authors[ZHANG1] == {
        "Starling preference data",
        "Preference models meet point clouds",
        "Adaptive soft thresholding",
    }
    assert ZHANG_BY_NAME not in authors  # merged away: its node is gone
    assert authors[ZHANG3] == {"Cross attention for point clouds"}
    assert authors[split_id(ZHANG3, [denoising])] == {"Image denoising with point priors"}
    ada = _props(curated, ADA)
    assert ada["name"] == "Augusta Ada King" and "Ada Lovelace" in ada["aliases"]
    assert f"curated: {ZHANG_BY_NAME} merged into {ZHANG1}" in _props(curated, ZHANG1)["mergeEvidence"]
    assert [c.describe() for c in load(file)] == [c.describe() for c in decisions]
    store.clear()
    for path in paths[::-1]:  # a fresh store, one file per ingest, in reverse: the same graph
        ingest([path], store, pipeline, jobs=1, curations=load(file))
    assert store.export() == curated


def test_kg_curate_records_lists_and_refuses_unknown_ids(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from api.cli import main

    data = tmp_path / "kg"
    paths = write_listings(tmp_path / "in", LISTINGS)
    assert main(["ingest", "--no-progress", "--jobs", "1", "--data-dir", str(data), *map(str, paths)]) == 0
    capsys.readouterr()
    assert main(["curate", "merge-authors", ZHANG1, ZHANG_BY_NAME, "--data-dir", str(data)]) == 0
    assert "recorded in" in capsys.readouterr().out
    assert (data / "curations.jsonl").read_text(encoding="utf-8") == (
        '{"verb": "merge-authors", "ids": ["' + ZHANG1 + '", "' + ZHANG_BY_NAME + '"]}\n'
    )
    assert main(["curate", "rename-author", "author:nobody", "X", "--data-dir", str(data)]) == 2
    assert "no Author 'author:nobody' in the store" in capsys.readouterr().err
    assert main(["curate", "list", "--data-dir", str(data)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"1. merge-authors {ZHANG1} {ZHANG_BY_NAME}",
        f"1 decision(s) in {data / 'curations.jsonl'}",
    ]
    (data / "curations.jsonl").write_text('{"verb": "merge-authors", "ids": ["a"]}\n', encoding="utf-8")
    assert main(["ingest", "--no-progress", "--data-dir", str(data), str(paths[0])]) == 2
    assert "curations.jsonl:1: merge-authors needs two or more different ids" in capsys.readouterr().err


def test_a_second_ieee_id_does_not_keep_a_profile_apart_but_two_ieee_ids_do() -> None:
    """IEEE Xplore gives one person several ids now and then: beside an OpenReview profile a
    different IEEE id is no veto (the IEEE cluster joins by shared co-authors, and so does the
    id-less slot both point to); without a profile, two IEEE ids still mean two people."""
    fox = "author:openreview:~Dieter_Fox1"
    lab = frozenset({"author:arunkumar-byravan", "author:tanner-schmidt"})
    slots = [
        Slot("p1", "Dieter Fox", ("openreview:~Dieter_Fox1", "ieee:266309835820341"), lab),
        Slot("p2", "Dieter Fox", ("openreview:~Dieter_Fox1",), lab),
        Slot("p3", "Dieter Fox", ("ieee:37284329000",), lab),
        Slot("p4", "Dieter Fox", ("ieee:37284329000",), frozenset({"author:arunkumar-byravan"})),
        Slot("p5", "Dieter Fox", (), lab),
        Slot("q1", "Tao Zhang", ("ieee:37067437500",), frozenset({"author:wei-wang"})),
        Slot("q2", "Tao Zhang", ("ieee:37086691757",), frozenset({"author:wei-wang"})),
    ]
    people = resolve(slots)
    assert people.person_of == resolve(slots[::-1]).person_of
    assert {k[0]: v for k, v in people.person_of.items()} == {
        "p1": fox,
        "p2": fox,
        "p3": fox,
        "p4": fox,
        "p5": fox,
        "q1": "author:ieee:37067437500",
        "q2": "author:ieee:37086691757",
    }
    evidence = people.people[fox].properties["mergeEvidence"]
    assert isinstance(evidence, list) and any("ieee:37284329000 joined" in str(e) for e in evidence), evidence


def test_author_search_rows_carry_what_tells_people_apart(
    store: ReadStore, pipeline: Pipeline, tmp_path: Path
) -> None:
    """``authors(search:)`` over HTTP on both stores: each row's years, venues, top co-authors
    and ids, so two people of one name can be told apart in the list."""
    import httpx

    from api.app import create_app
    from kg.core.config import Settings
    from tests.api.conftest import post, serve

    ingest(write_listings(tmp_path / "in", LISTINGS), store, pipeline, jobs=1)
    fields = (
        "id firstYear lastYear venues(first: 3) { venue papers } "
        "coauthors(first: 2) { author { name } papers } externalIds"
    )
    with serve(create_app(Settings(), store=store)) as server, httpx.Client(base_url=server.url) as client:
        body = post(client, f'{{ authors(search: "Jian Zhang") {{ edges {{ node {{ {fields} }} }} }} }}')
        assert "errors" not in body, body
        rows = {e["node"]["id"]: e["node"] for e in body["data"]["authors"]["edges"]}
        ada = post(client, f'{{ authors(search: "Ada Lovelace") {{ edges {{ node {{ {fields} }} }} }} }}')
    # ~Jian_Zhang1: CoRL 2022 (with Banghua Zhu); ~Jian_Zhang3: 3DV 2025 and the id-less ICML 2019
    # paper with Nicu Sebe; the name-keyed one: the ICML 2019 papers of split or no evidence.
    assert rows[ZHANG1] == {
        "id": ZHANG1,
        "firstYear": 2022,
        "lastYear": 2022,
        "venues": [{"venue": "CoRL", "papers": 1}],
        "coauthors": [{"author": {"name": "Banghua Zhu"}, "papers": 1}],
        "externalIds": ["openreview:~Jian_Zhang1"],
    }
    assert rows[ZHANG3]["firstYear"] == 2019 and rows[ZHANG3]["lastYear"] == 2025
    assert rows[ZHANG3]["venues"] == [{"venue": "3DV", "papers": 1}, {"venue": "ICML", "papers": 1}]
    assert rows[ZHANG3]["coauthors"] == [{"author": {"name": "Nicu Sebe"}, "papers": 2}]
    assert rows[ZHANG_BY_NAME]["venues"] == [{"venue": "ICML", "papers": 2}]
    assert rows[ZHANG_BY_NAME]["externalIds"] == []
    (row,) = [e["node"] for e in ada["data"]["authors"]["edges"]]
    # a1 CoRL 2022, a2 ICLR 2018, a3 ICML 2019, a4 NeurIPS 2019: one each, so by name; first 3
    assert (row["firstYear"], row["lastYear"]) == (2018, 2022)
    assert row["venues"] == [{"venue": v, "papers": 1} for v in ("CoRL", "ICLR", "ICML")]
    assert row["coauthors"][0] == {"author": {"name": "Charles Babbage"}, "papers": 3}


def test_two_authors_of_one_byline_are_never_one_person() -> None:
    """A listing that gives two co-authors one id (paperlists gave Jeff Schneider's slot Barnabas
    Poczos's email on one paper) must not make them one person on the papers they share: such a
    person could keep only one AUTHORED edge a paper, so a slot was lost and the next ingest,
    re-resolving the stored slots without it, moved people."""
    eric = frozenset({"author:eric-xing"})
    slots = [
        # the listing's mistake: Jeff's slot carries Barnabas's email (on a paper without him)
        Slot("x1", "Jeff Schneider", ("email:bp",), eric),
        Slot("x2", "Barnabas Poczos", ("email:bp",), eric | {"author:jeff-schneider"}),
        # both on one byline: Barnabas by the email, Jeff without ids (co-author Eric points to
        # the cluster that now carries both names)
        Slot("z", "Barnabas Poczos", ("email:bp",), eric | {"author:jeff-schneider"}),
        Slot("z", "Jeff Schneider", (), eric | {"author:barnabas-poczos"}),
        # one id on two slots of one paper: two people all the same
        Slot("y", "Ada Lovelace", ("email:shared",), frozenset({"author:charles-babbage"})),
        Slot("y", "Charles Babbage", ("email:shared",), frozenset({"author:ada-lovelace"})),
    ]
    people = resolve(slots)
    assert people.person_of == resolve(slots[::-1]).person_of
    for person in people.people.values():
        papers = [s.paper for s in person.slots]
        assert len(papers) == len(set(papers)), (person.id, papers)
    assert people.person_of[("z", "author:jeff-schneider", 0)] == "author:jeff-schneider"
    assert people.person_of[("z", "author:barnabas-poczos", 0)] == "author:email:bp"
    assert (
        people.person_of[("y", "author:ada-lovelace", 0)]
        != people.person_of[("y", "author:charles-babbage", 0)]
    )
