"""Hostile inputs through the real ``kg ingest``: in a subprocess, and forward vs reversed.

The subprocess cases run the console entry point exactly as a user does (a fresh
interpreter, a temp ``KG_DATA_DIR``): no traceback, the documented exit code, each skipped
line names its file (and line), and every good record is in the store afterwards.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from api.cli import main
from kg.core.ids import paper_id
from kg.readers import read_file
from tests.conftest import EXAMPLES, ROOT, TEST_DATA

# slow: every case runs real `kg ingest` processes (spaCy loaded each time); the order case
# ingests the same files twice (86 s of the 110 s this file took at load 26).
pytestmark = pytest.mark.slow

PAPERLISTS = TEST_DATA / "paperlists"
GOOD = [
    json.loads(line) for line in (TEST_DATA / "iclr2018.jsonl").read_text(encoding="utf-8").split("\n")[:12]
]


def _kg(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KG_DATA_DIR": str(data_dir), "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "api.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        cwd=ROOT,
    )


def _hostile_folder(folder: Path) -> None:
    """One file per failure class of the issue, each mixing good records with a bad one."""
    folder.mkdir()
    lines = [json.dumps(r, ensure_ascii=False) for r in GOOD]
    (folder / "utf8.jsonl").write_bytes(lines[0].encode()[:40] + b"\xff\xfe" + lines[0].encode()[40:] + b"\n")
    (folder / "nul.jsonl").write_text(lines[1][:50] + "\x00" + lines[1][50:] + "\n", encoding="utf-8")
    deep = '{"title": "deep", "abstract": "x", "m": ' + "[" * 50_000 + "]" * 50_000 + "}"
    (folder / "deep.json").write_text(f"[{lines[2]},\n{deep},\n{lines[3]}]", encoding="utf-8")
    (folder / "ints.jsonl").write_text(lines[4] + "\n" + '{"title": "n", "year": ' + "9" * 5000 + "}\n")
    csv_rows = "title,abstract\r" + "\r".join(
        f'"{r["title"]}","{r["abstract"].replace(chr(34), "")}"' for r in GOOD[5:7]
    )
    (folder / "cr.csv").write_text(
        csv_rows + "\r" + "Big," + "x" * 140_000 + "\r", encoding="utf-8", newline=""
    )
    (folder / "wrapped.json").write_text('{"pap\\u0065rs": [' + lines[7] + "]}", encoding="utf-8")
    (folder / "members.json").write_text(f'[{lines[8]}, {{"title": "broken", , {lines[9]}]', encoding="utf-8")
    sep = dict(GOOD[10], abstract=GOOD[10]["abstract"].replace(". ", ".\u2028 ", 1))
    (folder / "sep.jsonl").write_text(json.dumps(sep, ensure_ascii=False) + "\n", encoding="utf-8")
    bad = [{"title": {"x": 1}, "abstract": "a"}, {"title": "T", "abstract": "b", "authors": ["None", "5"]}]
    many = {
        "title": "Many",
        "abstract": "Many authors.",
        "authors": [f"Person Number{i}" for i in range(300)],
    }
    (folder / "values.jsonl").write_text("\n".join(json.dumps(r) for r in [*bad, many, GOOD[11]]) + "\n")
    (folder / "utf16.jsonl").write_bytes(b"\xff\xfe" + (lines[0] + "\n").encode("utf-16-le"))


def _expected_ids(paths: list[Path]) -> set[str]:
    ids = set()
    for f in paths:
        for p in read_file(f).papers:
            ids.add(paper_id(p.abstract, p.title))
    return ids


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_hostile_folder_through_the_cli(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    _hostile_folder(folder)
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    proc = _kg(tmp_path / "kg", "ingest", "--no-progress", str(folder), str(fifo))
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr
    assert proc.returncode == 1, proc.stdout + proc.stderr
    skipped = [line.strip() for line in proc.stdout.splitlines() if line.strip().startswith("skipped ")]
    assert skipped and all(str(folder) in s or str(fifo) in s for s in skipped)
    files = {s.split(" ", 1)[1].split(":", 1)[0] for s in skipped}
    assert str(fifo) in files
    for name in ("deep.json", "ints.jsonl", "cr.csv", "members.json", "values.jsonl"):
        assert any(
            s.startswith(f"skipped {folder / name}:") and s.split(":")[1].isdigit() for s in skipped
        ), name
    export = _kg(tmp_path / "kg", "export", "--format", "json")
    assert export.returncode == 0
    nodes = json.loads(export.stdout)["nodes"]
    stored = {n["id"] for n in nodes if n["label"] == "Paper"}
    assert stored == _expected_ids(sorted(folder.iterdir()))  # every good record, nothing more
    titles = {n["properties"].get("title") for n in nodes if n["label"] == "Paper"}
    assert {r["title"] for r in GOOD} <= titles
    authors = {n["properties"]["name"] for n in nodes if n["label"] == "Author"}
    assert not authors & {"None", "5"}
    many = next(n for n in nodes if n["label"] == "Paper" and n["properties"].get("title") == "Many")
    assert many["properties"]["coauthorPairs"] is False


def test_only_repairs_exit_0_through_the_cli(tmp_path: Path) -> None:
    f = tmp_path / "nul.jsonl"
    f.write_text(json.dumps(GOOD[0])[:60] + "\x00" + json.dumps(GOOD[0])[60:] + "\n", encoding="utf-8")
    proc = _kg(tmp_path / "kg", "ingest", "--no-progress", str(f))
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    assert f"repaired {f}:1: 1 NUL character(s) removed" in proc.stdout


def _export(data: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["export", "--format", "json", "--data-dir", str(data)]) == 0
    graph = json.loads(capsys.readouterr().out)
    nodes = {n["id"]: n for n in graph["nodes"]}
    rels = {(r["start"], r["type"], r["end"]): r.get("properties", {}) for r in graph["relationships"]}
    return {"nodes": nodes, "relationships": rels}


def test_forward_and_reversed_ingests_give_the_same_graph(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The seeds plus the paperlists sample, in file order and reversed: one export."""
    files = [*sorted(EXAMPLES.glob("*.txt")), *sorted(PAPERLISTS.glob("*.json"))]
    files_str = [str(f) for f in files]
    assert main(["ingest", "--no-progress", "--data-dir", str(tmp_path / "a"), *files_str]) == 0
    assert main(["ingest", "--no-progress", "--data-dir", str(tmp_path / "b"), *reversed(files_str)]) == 0
    forward, backward = _export(tmp_path / "a", capsys), _export(tmp_path / "b", capsys)
    assert forward["nodes"].keys() == backward["nodes"].keys()
    differing = [k for k in forward["nodes"] if forward["nodes"][k] != backward["nodes"][k]]
    assert differing == []
    assert forward["relationships"] == backward["relationships"]
    # and a re-ingest with nothing new changes nothing
    capsys.readouterr()
    assert main(["ingest", "--no-progress", "--data-dir", str(tmp_path / "a"), *files_str]) == 0
    out = capsys.readouterr().out
    papers = sum(1 for n in forward["nodes"].values() if n["label"] == "Paper")
    assert f"0 added, 0 updated, {papers} unchanged" in out
    assert _export(tmp_path / "a", capsys) == forward
