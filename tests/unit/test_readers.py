"""Readers: every seed format, structured exports, and field-level parsing."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from kg.core.topics import topic_path
from kg.readers import read_file
from kg.readers.detect import detect_format
from kg.readers.fields import looks_like_author_line, split_authors
from tests.conftest import EXAMPLES

SEARCH = EXAMPLES / "003_2a261481fbd52cec.txt"


def test_venue_header_listings_give_venue_and_year_without_titles() -> None:
    iclr = read_file(EXAMPLES / "000_41fdf5f793ca3f13.txt")
    icml = read_file(EXAMPLES / "001_e74cfc2c64d61251.txt")
    assert (len(iclr.papers), len(icml.papers)) == (19, 19)
    assert {(p.venue, p.year) for p in iclr.papers} == {("ICLR", 2026)}
    assert {(p.venue, p.year) for p in icml.papers} == {("ICML", 2026)}  # header "ICML 2026 论文列表"
    assert all(p.title is None and not p.authors for p in iclr.papers + icml.papers)
    assert iclr.papers[0].line == 3 and iclr.problems == [] and icml.problems == []


def test_search_layout_topic_author_abstract_blocks() -> None:
    result = read_file(SEARCH)
    assert len(result.papers) == 20 and result.problems == []
    first = result.papers[0]
    assert first.topic == "Reinforcement Learning"
    assert first.authors == ["Cheng Tang", "Zhishuai Liu", "Pan Xu"]
    assert first.venue is None and first.abstract.startswith("The Robust Regularized")
    chem = next(p for p in result.papers if p.topic and p.topic.startswith("Applications · Chem"))
    # a topic with commas is not an author line
    assert chem.authors == ["In Huh", "Changwook Jeong", "Muhammad Alam"]


def test_truncated_author_list_is_recorded() -> None:
    papers = read_file(SEARCH).papers
    truncated = [p for p in papers if p.authors_truncated]
    assert len(truncated) == 1
    assert truncated[0].authors[-1] == "Aradhana Sinha" and len(truncated[0].authors) == 10


def test_unicode_and_nickname_names_survive() -> None:
    names = {a for p in read_file(SEARCH).papers for a in p.authors}
    assert "Korbinian Pöppel" in names and "Günter Klambauer" in names
    assert "Zhangyang “Atlas” Wang" in names and "Dung D. Le" in names


def test_search_layout_without_blank_lines_and_lone_lines(tmp_path: Path) -> None:
    abstract = "We study a problem in depth and propose a method that works well in practice. " * 3
    f = tmp_path / "compact.txt"
    f.write_text(
        f"论文检索\nOptimization\nPan Xu\n{abstract}\nTheory · Optimization\nA B, C D 等\n{abstract}x\n",
        encoding="utf-8",
    )
    papers = read_file(f).papers
    assert [(p.topic, p.authors, p.authors_truncated) for p in papers] == [
        ("Optimization", ["Pan Xu"], False),
        ("Theory · Optimization", ["A B", "C D"], True),
    ]


def test_field_parsers() -> None:
    assert split_authors("A. Smith et al.") == (["A. Smith"], True)
    assert topic_path("Theory · Optimization") == ["Theory", "Optimization"]
    assert not looks_like_author_line("Applications · Chemistry, Physics, and Earth Sciences")
    assert not looks_like_author_line("In this paper, we study bandits, and regret.")


def test_jsonl_with_paperlists_fields(tmp_path: Path) -> None:
    f = tmp_path / "x.jsonl"
    rows = [
        {
            "id": "a1",
            "title": "T1",
            "authors": ["X Y", "Z W"],
            "abstract": "Abs one.",
            "keywords": ["bandits"],
            "venue": "ICLR",
            "year": 2018,
            "primary_area": "",
        },
        {
            "id": "a2",
            "title": "Only a title",
            "authors": [],
            "abstract": "",
            "venue": "NeurIPS",
            "year": 2023,
        },
    ]
    f.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    result = read_file(f)
    assert result.format == "jsonl" and result.problems == []
    a, b = result.papers
    assert (a.title, a.authors, a.keywords, a.venue, a.year, a.line) == (
        "T1",
        ["X Y", "Z W"],
        ["bandits"],
        "ICLR",
        2018,
        1,
    )
    assert b.title == "Only a title" and b.abstract == "" and b.line == 2


def test_json_array_and_wrapped_object_keep_line_numbers(tmp_path: Path) -> None:
    arr = tmp_path / "a.json"
    arr.write_text('[\n {"title": "One"},\n {"title": "Two", "authors": "A B, C D"}\n]\n')
    result = read_file(arr)
    assert result.format == "json" and [p.line for p in result.papers] == [2, 3]
    assert result.papers[1].authors == ["A B", "C D"]
    wrapped = tmp_path / "b.json"
    wrapped.write_text('{"papers": [{"title": "One"}]}')
    assert [p.title for p in read_file(wrapped).papers] == ["One"]


def test_csv_export(tmp_path: Path) -> None:
    f = tmp_path / "p.csv"
    f.write_text('title,authors,abstract,year,venue\n"T, with comma","A B; C D",Abs.,2024,COLM\n')
    (p,) = read_file(f).papers
    assert (p.title, p.authors, p.year, p.venue, p.line) == ("T, with comma", ["A B", "C D"], 2024, "COLM", 2)


@pytest.mark.parametrize(
    ("text", "fmt"),
    [
        ('{"a": 1}\n{"a": 2}\n', "jsonl"),
        ("[{}]", "json"),
        ("title,abstract\n", "csv"),
        ("ICLR 2026 Papers\n", "listing"),
    ],
)
def test_format_is_chosen_by_content(text: str, fmt: str) -> None:
    assert detect_format(text) == fmt


def test_txt_file_holding_jsonl_is_read_as_jsonl(tmp_path: Path) -> None:
    f = tmp_path / "export.txt"
    f.write_text('{"title": "A"}\n{"title": "B"}\n')
    assert [p.title for p in read_file(f).papers] == ["A", "B"]


def test_bom_less_utf16_is_text_not_binary(tmp_path: Path) -> None:
    f = tmp_path / "export.jsonl"
    f.write_bytes(json.dumps({"title": "Gödel machines", "abstract": "Self-reference."}).encode("utf-16-le"))
    result = read_file(f)
    assert [p.title for p in result.papers] == ["Gödel machines"] and result.problems == []


def test_a_csv_field_over_128_kib_in_an_unused_column_is_read(tmp_path: Path) -> None:
    f = tmp_path / "wide.csv"
    f.write_text(
        "title,abstract,notes\r\nWide,We study wide rows.," + "n" * 200_000 + "\r\n", encoding="utf-8"
    )
    result = read_file(f)
    assert [p.title for p in result.papers] == ["Wide"] and result.problems == []


def test_a_broken_first_jsonl_line_keeps_the_file_jsonl() -> None:
    text = '{"title": "broken", \n{"title": "ok", "abstract": "x"}\n'
    assert detect_format(text) == "jsonl"
    assert detect_format('{"papers": [{"title": "a"}]}') == "json"


def test_json_problems_name_the_record_number(tmp_path: Path) -> None:
    f = tmp_path / "one_line.json"
    f.write_text('[{"title": "A", "abstract": "a"}, {"title": {"x": 1}}, {"title": "C", "abstract": "c"}]')
    result = read_file(f)
    assert [p.title for p in result.papers] == ["A", "C"]
    assert [str(p) for p in result.problems] == [
        f"{f}:1: record 2: record skipped: title must be a string, got an object"
    ]


def test_venue_and_year_precedence_record_site_bibtex_file_name(tmp_path: Path) -> None:
    f = tmp_path / "cvpr2019.jsonl"
    rows = [
        {"title": "Own", "abstract": "a", "venue": "iclr", "year": 2018},
        {
            "title": "Site",
            "abstract": "b",
            "site": "https://openaccess.thecvf.com/content_WACV_2020/html/x.html",
        },
        {"title": "Bib", "abstract": "c", "bibtex": "@inproceedings{k, booktitle={Proc. CoRL}, year={2024}}"},
        {"title": "File", "abstract": "d"},
        {"title": "Bad year", "abstract": "e", "year": 99999},
    ]
    f.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    result = read_file(f)
    assert [(p.title, p.venue, p.year) for p in result.papers] == [
        ("Own", "ICLR", 2018),
        ("Site", "WACV", 2020),
        ("Bib", "CoRL", 2024),
        ("File", "CVPR", 2019),
        ("Bad year", "CVPR", 2019),
    ]
    assert [str(p) for p in result.problems] == [
        f"{f}:5: year 99999 is outside 1900..{date.today().year + 1}"
    ]


def test_author_names_lose_footnote_marks_entities_and_mojibake(tmp_path: Path) -> None:
    """Real author strings from ../shared/data/paperlists (ICLR 2017, CoRL, IROS exports): each
    mark made a second Author node for its person; each repair is reported with file and line."""
    f = tmp_path / "iclr2017.json"
    rows = [
        {
            "id": "rye9LT8cee",
            "title": "ADMM for Sparse CNNs",
            "abstract": "We reduce CNNs.",
            "author": "Farkhondeh Kiaee;Christian Gagné;and Mahdieh Abbasi",
        },
        {
            "id": "x2",
            "title": "Marks",
            "abstract": "Names with marks.",
            "author": "*Krzysztof Maziarz;Aashish N Patel*;Lihe Zhang¹;Sujith Ravi[2];Renaud DubÃ©",
        },
        {"id": "x3", "title": "Clean", "abstract": "Nothing to repair.", "author": "Ömer Morgül;R. Zhang"},
    ]
    f.write_text("[\n" + ",\n".join(json.dumps(r) for r in rows) + "\n]\n", encoding="utf-8")
    result = read_file(f)
    assert [p.authors for p in result.papers] == [
        ["Farkhondeh Kiaee", "Christian Gagné", "Mahdieh Abbasi"],
        ["Krzysztof Maziarz", "Aashish N Patel", "Lihe Zhang", "Sujith Ravi", "Renaud Dubé"],
        ["Ömer Morgül", "R. Zhang"],
    ]
    repaired = [p for p in result.problems if p.severity == "repaired"]
    assert len(repaired) == 6 and all(p.file == str(f) for p in repaired)
    assert {p.line for p in repaired} == {2, 3}  # the records' lines; the clean one has none
    assert any("'and Mahdieh Abbasi'" in p.reason and "leading 'and'" in p.reason for p in repaired)
