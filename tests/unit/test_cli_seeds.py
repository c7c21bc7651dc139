"""End to end on the seed listings through the ``kg`` CLI (embedded store)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from api.cli import main
from tests.conftest import EXAMPLES


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("KG_DATA_DIR", str(tmp_path / "kg"))
    return tmp_path / "kg"


def test_seed_ingest_stats_and_idempotence(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = sorted(str(p) for p in EXAMPLES.iterdir())
    code, out = run(capsys, "ingest", "--no-progress", *files)
    assert code == 0, out
    assert "3 file(s), 58 paper(s) read" in out and "58 added, 0 updated, 0 unchanged, 0 skipped" in out
    _, stats_out = run(capsys, "stats", "--json")
    stats = json.loads(stats_out)
    nodes, rels = stats["nodes"], stats["relationships"]
    assert (nodes["Paper"], nodes["Venue"], nodes["Author"], nodes["Topic"]) == (58, 2, 108, 19)
    assert rels["HAS_TOPIC"] == 20 and rels["PUBLISHED_IN"] == 38 and rels["SUBTOPIC_OF"] == 12

    code, out = run(capsys, "ingest", "--no-progress", str(EXAMPLES))  # a folder this time
    assert code == 0 and "0 added, 0 updated, 58 unchanged, 0 skipped" in out
    _, again = run(capsys, "stats", "--json")
    assert json.loads(again) == stats


def test_seed_graph_contents(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "ingest", "--no-progress", str(EXAMPLES))
    _, out = run(capsys, "export", "--format", "json")
    graph = json.loads(out)
    nodes = {n["id"]: n for n in graph["nodes"]}
    rels = graph["relationships"]

    def papers_of(node_id: str, rel_type: str, end: bool) -> int:
        return sum(1 for r in rels if r["type"] == rel_type and r["end" if end else "start"] == node_id)

    assert papers_of("venue:iclr-2026", "PUBLISHED_IN", True) == 19
    assert papers_of("venue:icml-2026", "PUBLISHED_IN", True) == 19
    assert nodes["venue:iclr-2026"]["properties"] == {"name": "ICLR 2026", "series": "ICLR", "year": 2026}
    assert papers_of("author:sanjeev-arora", "AUTHORED", False) == 2
    assert papers_of("author:abhishek-panigrahi", "AUTHORED", False) == 2
    assert nodes["author:zhangyang-wang"]["properties"] == {"name": "Zhangyang Wang", "nickname": "Atlas"}
    assert nodes["author:korbinian-poppel"]["properties"]["name"] == "Korbinian Pöppel"
    llm = nodes["topic:deep-learning/large-language-models"]["properties"]
    assert llm == {"name": "Large Language Models", "path": ["Deep Learning", "Large Language Models"]}
    assert {
        "type": "SUBTOPIC_OF",
        "start": "topic:deep-learning/large-language-models",
        "end": "topic:deep-learning",
        "properties": {},
    } in rels
    assert "topic:theory/optimization" in nodes and "topic:optimization" in nodes
    papers = [n for n in graph["nodes"] if n["label"] == "Paper"]
    assert sum(1 for p in papers if p["properties"]["authorsTruncated"]) == 1
    assert all(p["properties"]["abstract"] and p["properties"]["title"] for p in papers)
    assert {p["properties"]["titleSource"] for p in papers} == {"DERIVED"}
    concepts = [n for n in graph["nodes"] if n["label"] == "Concept"]
    assert concepts and all({"name", "kind", "aliases"} <= set(c["properties"]) for c in concepts)


def test_graphml_and_cypher_exports(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "ingest", "--no-progress", str(EXAMPLES))
    out_file = tmp_path / "g.graphml"
    assert main(["export", "--format", "graphml", "-o", str(out_file)]) == 0
    root = ET.parse(out_file).getroot()
    ns = {"g": "http://graphml.graphdrawing.org/xmlns"}
    assert len(root.findall(".//g:node", ns)) >= 58 + 108 + 2 + 19
    _, cypher = run(capsys, "export", "--format", "cypher")
    assert cypher.count("MERGE (n:Paper {id:") == 58


def test_missing_spacy_vocabulary_or_store_errors_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "kg"
    bad.mkdir()
    (bad / "graph.sqlite").write_bytes(b"garbage" * 1000)
    code = main(["stats", "--data-dir", str(bad)])
    err = capsys.readouterr().err
    assert (
        code == 2
        and "is damaged: the file does not start with the SQLite header" in err
        and "Traceback" not in err
    )
    assert len(err.strip().splitlines()) == 1
