"""Bad input: a specific message naming file and line, and nothing else lost."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from api.cli import main
from tests.conftest import EXAMPLES

GOOD = {"title": "A good paper", "abstract": "We study multi-armed bandits with regret bounds."}


def _ingest(tmp_path: Path, capsys: pytest.CaptureFixture[str], *paths: Path) -> tuple[int, str]:
    code = main(["ingest", "--no-progress", "--data-dir", str(tmp_path / "kg"), *map(str, paths)])
    return code, capsys.readouterr().out


def _papers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> int:
    main(["stats", "--json", "--data-dir", str(tmp_path / "kg")])
    return int(json.loads(capsys.readouterr().out)["nodes"]["Paper"])


def _good_file(tmp_path: Path) -> Path:
    f = tmp_path / "good.jsonl"
    f.write_text(json.dumps(GOOD) + "\n", encoding="utf-8")
    return f


def test_missing_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _ingest(tmp_path, capsys, tmp_path / "nope.txt", _good_file(tmp_path))
    assert code == 1
    assert f"skipped {tmp_path / 'nope.txt'}: no such file or directory" in out
    assert _papers(tmp_path, capsys) == 1


def test_empty_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("  \n\n")
    code, out = _ingest(tmp_path, capsys, empty, _good_file(tmp_path))
    assert code == 1 and f"{empty}: file is empty" in out
    assert _papers(tmp_path, capsys) == 1


def test_binary_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    binary = tmp_path / "listing.txt"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    code, out = _ingest(tmp_path, capsys, binary, _good_file(tmp_path))
    assert code == 1 and f"{binary}: binary file (PNG image), not a listing" in out
    assert _papers(tmp_path, capsys) == 1


def test_non_utf8_file_names_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    latin = tmp_path / "latin1.txt"
    latin.write_bytes("ICLR 2026 Papers\n\nG\u00f6del".encode("latin-1"))
    code, out = _ingest(tmp_path, capsys, latin)
    assert f"repaired {latin}:3: invalid UTF-8 (byte 0xf6 at column 2) replaced by U+FFFD" in out
    assert code == 1 and f"skipped {latin}: not a known listing format" in out


def test_unknown_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    odd = tmp_path / "notes.txt"
    odd.write_text("shopping list\nmilk\neggs\n")
    code, out = _ingest(tmp_path, capsys, odd, _good_file(tmp_path))
    assert code == 1 and f"{odd}: not a known listing format" in out
    assert _papers(tmp_path, capsys) == 1


def test_malformed_json_line_keeps_the_good_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "mixed.jsonl"
    other = {"title": "Another paper", "abstract": "Nash equilibria in zero-sum games."}
    f.write_text(json.dumps(GOOD) + '\n{"title": "broken", \n' + json.dumps(other) + "\n")
    code, out = _ingest(tmp_path, capsys, f)
    assert code == 1
    assert f"{f}:2: malformed JSON line" in out
    assert "2 paper(s) read" in out and "2 added" in out and "1 skipped" in out
    assert _papers(tmp_path, capsys) == 2


def test_csv_without_title_or_abstract_columns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "wrong.csv"
    f.write_text("name_of_author,year\nA B,2020\n")
    code, out = _ingest(tmp_path, capsys, f, _good_file(tmp_path))
    assert code == 1
    assert f"{f}:1: CSV header has no title or abstract column (found: name_of_author, year" in out
    assert _papers(tmp_path, capsys) == 1


def test_csv_row_with_missing_fields(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "short.csv"
    f.write_text("title,abstract,year\nGood one,Abstract one.,2020\nShort row\nGood two,Abstract two.,2021\n")
    code, out = _ingest(tmp_path, capsys, f)
    assert code == 1 and f"{f}:3: row has 1 fields, the header has 3" in out
    assert _papers(tmp_path, capsys) == 2


def test_record_without_title_or_abstract(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "r.jsonl"
    f.write_text(json.dumps({"authors": ["A B"], "year": 2020}) + "\n" + json.dumps(GOOD) + "\n")
    code, out = _ingest(tmp_path, capsys, f)
    assert code == 1 and f"{f}:1: record has neither a title nor an abstract" in out
    assert _papers(tmp_path, capsys) == 1


def test_title_only_record_is_a_valid_paper(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "meta.jsonl"
    f.write_text(
        json.dumps({"title": "Scaling Laws for Sparse Models", "abstract": "", "authors": ["A B"]}) + "\n"
    )
    code, out = _ingest(tmp_path, capsys, f)
    assert code == 0 and "1 added" in out and "0 skipped" in out


def test_listing_lines_without_abstract_are_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "cut.txt"
    text = (EXAMPLES / "003_2a261481fbd52cec.txt").read_text(encoding="utf-8").rstrip("\n")
    f.write_text(text + "\n\nTheory\n\nSomeone Else, Another Person\n", encoding="utf-8")
    code, out = _ingest(tmp_path, capsys, f)
    assert code == 1 and "20 added" in out
    theory_line = text.count("\n") + 3  # last line of the listing, a blank line, then "Theory"
    said = f"{f}:{theory_line}: 2 lines up to line {theory_line + 2} are not followed by an abstract"
    said += ", from 'Theory'"
    assert said in out and "put a blank line between papers" in out  # one line, saying what to do


@pytest.mark.parametrize("suffix", [".jsonl", ".json", ".txt", ".csv"])
def test_a_50_mb_single_line_abstract_is_refused_quickly(tmp_path: Path, suffix: str) -> None:
    from kg.readers import read_file

    f = tmp_path / f"huge{suffix}"
    abstract = "word " * 10_000_000  # 50 MB on one line
    if suffix == ".csv":
        f.write_text(f"title,abstract\nHuge,{abstract}\nFine,We study bandits.\n", encoding="utf-8")
    elif suffix == ".txt":
        f.write_text(f"ICLR 2026 Papers\n\n{abstract}\n", encoding="utf-8")
    else:
        rec = json.dumps({"title": "Huge", "abstract": abstract})
        f.write_text(
            rec + "\n" + json.dumps(GOOD) + "\n" if suffix == ".jsonl" else f"[{rec}]", encoding="utf-8"
        )
    t0 = time.perf_counter()
    result = read_file(f)
    assert time.perf_counter() - t0 < 15
    assert [p.title for p in result.papers] in ([], ["A good paper"], ["Fine"])
    (problem,) = [p for p in result.problems if p.severity == "skipped"]
    assert problem.line in (1, 2, 3) and "limit" in problem.reason and str(f) == problem.file


def test_an_exception_inside_one_file_costs_only_that_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reader bug (simulated: the CSV reader raises) becomes that file's error."""
    import kg.readers.detect as detect

    def broken(text: str, file: str) -> object:
        raise RuntimeError("simulated reader bug")

    monkeypatch.setattr(detect, "read_csv", broken)
    bad = tmp_path / "rows.csv"
    bad.write_text("title,abstract\nT,A\n", encoding="utf-8")
    code, out = _ingest(tmp_path, capsys, bad, _good_file(tmp_path))
    assert code == 1
    assert f"skipped {bad}: reader failed: RuntimeError: simulated reader bug" in out
    assert _papers(tmp_path, capsys) == 1


def test_a_fifo_on_the_command_line_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import os

    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    code, out = _ingest(tmp_path, capsys, fifo, _good_file(tmp_path))
    assert code == 1 and f"skipped {fifo}: not a regular file (a FIFO), not read" in out
    assert _papers(tmp_path, capsys) == 1


def test_repairs_are_reported_but_do_not_fail_the_ingest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "nul.jsonl"
    f.write_text(json.dumps(GOOD).replace("bandits", "ban\\u0000dits").replace("A good", "A\x00 good") + "\n")
    code, out = _ingest(tmp_path, capsys, f)
    assert code == 0 and "0 skipped, 2 repaired" in out
    assert f"repaired {f}:1: 1 NUL character(s) removed" in out  # a raw NUL byte
    assert f"repaired {f}:1: abstract: removed 1 control/bidi character(s)" in out  # "\u0000" in JSON


def test_a_placeholder_author_is_a_repair_not_a_skip(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ICLR 2018 lists double-blind rejects with the author "Anonymous": the file says nobody,
    it is not broken, so a clean ingest of it must exit 0 (a ``set -e`` script goes on)."""
    f = tmp_path / "anon.jsonl"
    records = [
        {**GOOD, "author": "Anonymous"},
        {"title": "Second paper", "abstract": "Bandit feedback again.", "author": "Ada Lovelace;Unknown"},
    ]
    f.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    code, out = _ingest(tmp_path, capsys, f)
    assert code == 0, out
    assert "0 skipped, 2 repaired" in out
    assert f"repaired {f}:1: author name 'Anonymous' is a placeholder, not a name: left out" in out
    main(["export", "--format", "json", "--data-dir", str(tmp_path / "kg")])
    authors = {
        n["properties"]["name"]
        for n in json.loads(capsys.readouterr().out)["nodes"]
        if n["label"] == "Author"
    }
    assert authors == {"Ada Lovelace"}
    bad = tmp_path / "none.jsonl"  # a serialisation accident stays a skip
    bad.write_text(json.dumps({**GOOD, "author": "None"}) + "\n", encoding="utf-8")
    code, out = _ingest(tmp_path, capsys, bad)
    assert code == 1 and "skipped" in out and "author name 'None' is not a name" in out
