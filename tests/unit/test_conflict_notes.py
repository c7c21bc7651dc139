"""Two records of one paper that disagree on its title, year or venue: merged and noted.

A paper's id is its abstract's (else its title's), so the same abstract under two titles, years
or venues is one paper; the merge rules pick the stored values and, before, said nothing. Now
``kg ingest`` prints a ``note`` naming both sources for each conflicting field (exit code
unchanged), the graph holds what the documented rule gives, in either file order, and mere
spelling variants are not conflicts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from api.cli import main

ABSTRACT = "We study multi-armed bandits with heavy tailed rewards and prove matching regret bounds."


def _write(path: Path, **record: Any) -> Path:
    path.write_text(json.dumps({"abstract": ABSTRACT, **record}) + "\n", encoding="utf-8")
    return path


def _query(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    main(
        [
            "query",
            "--data-dir",
            str(data_dir),
            "{ papers(first: 5) { nodes { title year } } venues { name } }",
        ]
    )
    result: dict[str, Any] = json.loads(capsys.readouterr().out)["data"]
    return result


@pytest.mark.parametrize("order", ["a first", "b first"])
def test_conflicting_duplicates_are_merged_and_noted(
    order: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _write(tmp_path / "a.jsonl", title="Bandits with heavy tails", year=2020, venue="ICLR 2020")
    b = _write(tmp_path / "b.jsonl", title="Heavy-tailed bandits revisited", year=2021, venue="NeurIPS 2021")
    files = [a, b] if order == "a first" else [b, a]
    data_dir = tmp_path / "kg"
    code = main(["ingest", "--no-progress", "--jobs", "1", "--data-dir", str(data_dir), *map(str, files)])
    out = capsys.readouterr().out
    assert code == 0, out
    notes = [line.strip() for line in out.splitlines() if line.strip().startswith("note ")]
    second, first = (b, a) if order == "a first" else (a, b)
    assert len(notes) == 3, out
    for field, rule in (
        ("title", "the smaller string is kept"),
        ("year", "the larger year is kept"),
        ("venue", "the paper is linked to both venues"),
    ):
        (note,) = [n for n in notes if f"different {field}:" in n]
        assert note.startswith(f"note {second}:1: same paper as {first}:1 (same abstract)"), note
        assert note.endswith(rule), note
    assert "'Bandits with heavy tails'" in out and "'Heavy-tailed bandits revisited'" in out
    graph = _query(data_dir, capsys)
    assert graph["papers"]["nodes"] == [{"title": "Bandits with heavy tails", "year": 2021}]
    assert sorted(v["name"] for v in graph["venues"]) == ["ICLR 2020", "NeurIPS 2021"]


def test_spelling_variants_are_not_conflicts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _write(tmp_path / "a.jsonl", title="Bandits With Heavy Tails", year=2020)
    b = _write(tmp_path / "b.jsonl", title="bandits with heavy-tails", year=2020)
    code = main(
        ["ingest", "--no-progress", "--jobs", "1", "--data-dir", str(tmp_path / "kg"), str(a), str(b)]
    )
    out = capsys.readouterr().out
    assert code == 0 and "note " not in out, out
