"""paperlists files as published: venue/year, track/status, author ids, taxonomy topics.

Every record here is a real one from ``../shared/data/paperlists`` (tests/data/README.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from api.cli import main
from extractors.metadata import extract_authors, extract_topics
from extractors.registry import ExtractInput
from kg.core.ids import author_node_id, paper_id
from kg.core.models import Properties, RawPaper
from kg.readers import read_file
from kg.readers.paperlists import venue_from_file_name, venue_from_site
from tests.conftest import TEST_DATA

PAPERLISTS = TEST_DATA / "paperlists"


def _papers(name: str) -> list[RawPaper]:
    result = read_file(PAPERLISTS / name)
    assert [p for p in result.problems if p.severity == "skipped"] == []
    return result.papers


def _authors(paper: RawPaper) -> dict[str, Properties]:
    parts = extract_authors(ExtractInput(paper=paper, paper_id=paper_id(paper.abstract, paper.title)))
    return {n.id: dict(n.properties) for n in parts.nodes}


def test_venue_and_year_come_from_the_file_name_when_records_have_none() -> None:
    papers = _papers("corl2024.json")
    assert len(papers) == 2
    assert {(p.venue, p.year) for p in papers} == {("CoRL", 2024)}
    assert {(p.track, p.status) for p in papers} == {("main", "Poster")}


def test_site_is_used_before_the_file_name() -> None:
    (paper,) = _papers("naacl2021.json")
    assert (paper.venue, paper.year) == ("NAACL", 2021)
    assert venue_from_site(str(paper.url)) == ("NAACL", 2021)
    assert venue_from_file_name("nips/nips1987.json") == ("NeurIPS", 1987)


def test_openreview_orcid_and_dblp_ids_key_the_authors() -> None:
    paper = _papers("corl2024.json")[1]
    raw = json.loads((PAPERLISTS / "corl2024.json").read_text(encoding="utf-8"))[1]
    names = [n.strip() for n in raw["author"].split(";")]
    assert paper.authors == names and len(paper.author_keys) == len(names)
    orcids = raw["orcid"].split(";")
    slot = next(i for i, o in enumerate(orcids) if o.strip())
    assert f"orcid:{orcids[slot].strip().upper()}" in paper.author_keys[slot]
    openreview = raw["authorids"].split(";")[slot].strip()
    node_id = author_node_id(names[slot], paper.author_keys[slot])
    assert node_id == f"author:openreview:{openreview}"  # OpenReview outranks ORCID
    props = _authors(paper)[node_id]
    external_ids = props["externalIds"]
    assert isinstance(external_ids, list), props
    assert props["name"] == names[slot] and f"orcid:{orcids[slot].strip().upper()}" in external_ids


def test_one_id_under_two_spellings_is_one_author(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (naacl,) = _papers("naacl2021.json")
    (acl,) = _papers("acl2021.json")
    a = _authors(naacl)["author:acl:niloy-ganguly"]
    b = _authors(acl)["author:acl:niloy-ganguly"]
    assert (a["name"], b["name"]) == ("Niloy Ganguly", "NIloy Ganguly")
    for order in (
        [PAPERLISTS / "naacl2021.json", PAPERLISTS / "acl2021.json"],
        [PAPERLISTS / "acl2021.json", PAPERLISTS / "naacl2021.json"],
    ):
        data = tmp_path / f"kg-{order[0].stem}"
        assert main(["ingest", "--no-progress", "--data-dir", str(data), *map(str, order)]) == 0
        capsys.readouterr()
        main(["export", "--format", "json", "--data-dir", str(data)])
        nodes = {n["id"]: n for n in json.loads(capsys.readouterr().out)["nodes"]}
        niloy = nodes["author:acl:niloy-ganguly"]["properties"]
        assert niloy["name"] == "Niloy Ganguly" and niloy["aliases"] == ["NIloy Ganguly"]
        assert "author:niloy-ganguly" not in nodes


def test_one_name_with_two_ids_is_two_authors_and_the_idless_one_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [PAPERLISTS / n for n in ("colm2024.json", "3dv2025.json", "cvpr2015.json")]
    code = main(["ingest", "--no-progress", "--data-dir", str(tmp_path / "kg"), *map(str, files)])
    out = capsys.readouterr().out
    assert code == 0
    assert (
        "note: author 'Jian Zhang' on 1 paper(s) without an id matches 2 authors with ids "
        "(author:openreview:~Jian_Zhang1, author:openreview:~Jian_Zhang3); kept apart as author:jian-zhang"
    ) in out
    main(["export", "--format", "json", "--data-dir", str(tmp_path / "kg")])
    ids = {n["id"] for n in json.loads(capsys.readouterr().out)["nodes"]}
    assert {"author:openreview:~Jian_Zhang1", "author:openreview:~Jian_Zhang3", "author:jian-zhang"} <= ids


def test_a_repeated_author_list_is_read_once() -> None:
    (paper,) = _papers("icra2020.json")
    raw = json.loads((PAPERLISTS / "icra2020.json").read_text(encoding="utf-8"))[0]
    assert len(raw["author"].split(";")) == 10 and len(paper.authors) == 5
    assert paper.author_keys[0] == ("ieee:37089406983",)


def test_ijcai_taxonomy_keywords_become_topic_paths() -> None:
    (paper,) = _papers("ijcai2024.json")
    assert paper.keywords == []
    assert ["Computer Vision", "Biometrics, face, gesture and pose recognition"] in paper.topics
    parts = extract_topics(ExtractInput(paper=paper, paper_id="paper:x"))
    leaves = {r.end for r in parts.relationships if r.type == "HAS_TOPIC"}
    assert "topic:computer-vision/motion-and-tracking" in leaves
    assert "topic:computer-vision" in {n.id for n in parts.nodes}


def test_a_lone_taxonomy_keyword_with_commas_in_brackets_stays_one_topic(tmp_path: Path) -> None:
    """IJCAI paper144 lists one keyword, so no ``;`` tells the reader the separator: the commas
    inside its brackets must not split it (they made 188 IJCAI papers' stray keywords)."""
    record = {
        "id": "paper144",
        "title": "FineFMPL: Fine-grained Feature Mining Prompt Learning for Few-Shot Class Incremental "
        "Learning",
        "author": "Hongbo Sun; Jiahuan Zhou; Xiangteng He; Jinglin Xu; Yuxin Peng",
        "abstract": "Few-Shot Class Incremental Learning (FSCIL) aims to continually learn new classes "
        "from few training samples without forgetting the old ones.",
        "keywords": "Computer Vision: CV: Recognition (object detection, categorization)",
    }
    path = tmp_path / "ijcai2024.json"
    path.write_text(json.dumps([record]), encoding="utf-8")
    (paper,) = read_file(path).papers
    assert paper.keywords == []
    assert paper.topics == [["Computer Vision", "Recognition (object detection, categorization)"]]


def test_every_paper_of_the_fixture_folder_has_a_venue_and_year() -> None:
    result = [read_file(f) for f in sorted(PAPERLISTS.glob("*.json"))]
    papers = [p for r in result for p in r.papers]
    assert len(papers) == 9
    assert all(p.venue and p.year for p in papers)


def test_identity_counts_against_name_only_keys() -> None:
    from kg.authors.report import AuthorIdentityStats

    stats = AuthorIdentityStats()
    for f in sorted(PAPERLISTS.glob("*.json")):
        stats.add(read_file(f).papers)
    s = stats.summary()
    # two Jian Zhangs with OpenReview ids: one name key split in two, within one id system
    assert (s["split"], s["split_within_one_id_system"], s["split_across_id_systems"]) == (1, 1, 0)
    # ... plus the id-less Jian Zhang of CVPR 2015: one more node than name-only keys give
    assert s["nodes"] == s["name_only_nodes"] + 2 and s["ambiguous_idless_names"] == 1
    assert s["merged"] == 0  # 'NIloy Ganguly' folds to the same name key as 'Niloy Ganguly'
