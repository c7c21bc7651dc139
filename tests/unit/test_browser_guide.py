"""The documented Browser queries file, parsed, and the guide rendered from picks (no server)."""

from __future__ import annotations

import argparse
import html
from pathlib import Path

import pytest

from kg.browser.guide import GuidePicks, Pick, guide_blocks, render_guide, run
from kg.browser.queries import QueryFileError, load_queries, parse_queries
from tests.conftest import ROOT

QUERIES_FILE = ROOT / "neo4j-browser" / "browser-queries.cypher"


def test_the_shipped_file_parses_with_numbers_titles_and_defaults() -> None:
    queries = load_queries(QUERIES_FILE)
    by_number = {q.number: q for q in queries}
    assert list(by_number) == ["0", "1", "2", "3", "3b", "4", "4b", "4c", "5", "5b"]
    assert by_number["1"].title == "A concept's neighbourhood (graph view)."
    assert by_number["1"].params == {"name": "'language models'", "limit": "15"}
    assert by_number["4"].params == {}
    pictures = [q.number for q in queries if q.is_picture]
    assert pictures == ["1", "2", "3", "4", "4c", "5b"]


def test_params_stay_set_for_later_queries_as_in_browser() -> None:
    text = "// 1. first\n:param x => 1;\nRETURN $x;\n\n// 2. second\nRETURN $x + 1;\n"
    first, second = parse_queries(text)
    assert first.params == second.params == {"x": "1"}
    assert (second.number, second.title, second.line) == ("2", "second", 6)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("// 1. q\nMATCH (n)\nRETURN n\n", "f.cypher:2: statement does not end with ';'"),
        ("// 1. q\nRETURN $nope;\n", "f.cypher:2: $nope is used before a ':param nope => ...;' line"),
        ("RETURN 1;\n", "f.cypher:1: no '// N. title' comment numbers this query"),
        ("// 1. q\n:param = 3;\n", "f.cypher:2: expected ':param name => value;'"),
    ],
)
def test_a_malformed_file_is_one_clear_error_with_file_and_line(text: str, message: str) -> None:
    with pytest.raises(QueryFileError) as err:
        parse_queries(text, "f.cypher")
    assert str(err.value) == message


def test_a_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(QueryFileError, match="cannot read .*nope.cypher"):
        load_queries(tmp_path / "nope.cypher")


def _picks() -> GuidePicks:
    return GuidePicks(
        label_counts={"Paper": 3, "Concept": 5, "Method": 2, "Author": 4},
        concepts=[
            Pick("graph neural network", "model, 3 papers"),
            Pick("Kullback-Leibler", "x"),
            Pick("x's", "y"),
        ],
        authors=[Pick("Ada O'Brien", "3 co-authors, 2 papers")],
        roots=[Pick("Deep Learning", "2 subtopics, 3 papers")],
        venues=[Pick("ICLR", "3 papers")],
        min_weight=3,
        co_occurs_edges=7,
    )


def test_guide_blocks_write_the_picks_into_the_queries() -> None:
    queries = load_queries(QUERIES_FILE)
    blocks = guide_blocks(queries, _picks())
    texts = {q.number: [t for qq, t in blocks if qq.number == q.number] for q in queries}
    # the top pick, then up to two more concepts for queries that take $name
    assert [t.split("{name: ")[1].split("}")[0] for t in texts["1"]] == [
        "'graph neural network'",
        "'Kullback-Leibler'",
        "'x\\'s'",
    ]
    assert "{name: 'Ada O\\'Brien'}" in texts["3"][0]
    assert "co.papers >= 3" in texts["2"][0]
    assert "LIMIT 15" in texts["1"][0]  # the file's default where the graph picks nothing
    assert all("$" not in t for _, t in blocks)


def test_rendered_guide_is_escaped_html_with_one_slide_per_group() -> None:
    text = render_guide(load_queries(QUERIES_FILE), _picks())
    assert text.count("<slide>") == text.count("</slide>") == 6
    assert "<title>paperkg (3 papers)</title>" in text
    assert "Ada O&#x27;Brien" in text and "Ada O'Brien" not in text
    assert "$minWeight = 3 keeps 7 pairs." in text
    assert ">Method 2</span>" in text  # the legend in the pictures' colours
    blocks = [html.unescape(b.split("</pre>")[0]) for b in text.split('<pre class="runnable">')[1:]]
    assert blocks == [t for _, t in guide_blocks(load_queries(QUERIES_FILE), _picks())]


def test_unreachable_server_is_one_clear_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    args = argparse.Namespace(
        neo4j_uri="bolt://127.0.0.1:1",
        neo4j_user="neo4j",
        neo4j_password="",
        neo4j_database=None,
        queries=QUERIES_FILE,
        out=tmp_path / "guide.html",
    )
    assert run(args) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: cannot reach Neo4j at bolt://127.0.0.1:1")
    assert not (tmp_path / "guide.html").exists()
