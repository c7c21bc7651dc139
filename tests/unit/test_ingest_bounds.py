"""What one ``kg ingest`` may be asked to read is bounded, and a folder is read only inside.

Issue 27: a 14 MB array of a million tiny records was still being read after 845 s, 10,000
one-record files took 331 s, and links in an ingested folder to ``/etc/passwd`` and
``/proc/self/environ`` were opened and parsed. Now: records per file and files per run have
limits (a clear ``skipped`` line and a flag to raise them), and a symbolic link that leads out
of a folder given on the command line is not read (a path named on the command line is).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from api.cli import main
from kg.readers import iter_input_files, read_file
from kg.readers.problems import ReadProblem


def _record(i: int) -> dict[str, str]:
    return {"title": f"Paper number {i}", "abstract": f"We study bandits, case {i}."}


def _ingest(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["ingest", "--no-progress", "--jobs", "1", "--data-dir", str(tmp_path / "kg"), *args])
    return code, capsys.readouterr().out


def _papers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> int:
    main(["stats", "--json", "--data-dir", str(tmp_path / "kg")])
    return int(json.loads(capsys.readouterr().out)["nodes"]["Paper"])


def test_records_per_file_are_bounded_and_say_so(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_text(json.dumps([{"title": f"t{i}", "abstract": "a b"} for i in range(200_000)]))
    t0 = time.perf_counter()
    result = read_file(big, max_records=1_000)
    took = time.perf_counter() - t0
    assert len(result.papers) == 1_000
    (limit,) = [p for p in result.problems if "more than 1,000 records" in p.reason]
    assert "--max-records-per-file" in limit.reason and limit.severity == "skipped"
    assert took < 30, f"{took:.1f} s: the rest of the file must not be read"
    assert len(read_file(big, max_records=0).papers) == 200_000  # 0: no limit


def test_files_per_run_are_bounded_and_the_flag_raises_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(5):
        (folder / f"{i}.jsonl").write_text(json.dumps(_record(i)) + "\n")
    code, out = _ingest(tmp_path, capsys, "--max-files", "3", str(folder))
    assert code == 1, out
    assert "5 files to read, over the limit of 3 per run: the first 3 read, 2 not" in out
    assert "--max-files" in out
    assert _papers(tmp_path, capsys) == 3
    code, out = _ingest(tmp_path, capsys, "--max-files", "0", str(folder))
    assert code == 0, out
    assert _papers(tmp_path, capsys) == 5


def test_records_flag_through_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    listing = tmp_path / "ten.jsonl"
    listing.write_text("".join(json.dumps(_record(i)) + "\n" for i in range(10)))
    code, out = _ingest(tmp_path, capsys, "--max-records-per-file", "4", str(listing))
    assert code == 1 and "more than 4 records: the first 4 read, the rest (line 5 on) not" in out, out
    assert _papers(tmp_path, capsys) == 4


def test_links_out_of_an_ingested_folder_are_not_followed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "secret"
    outside.mkdir()
    secret = outside / "secret.jsonl"
    secret.write_text(json.dumps({"title": "Secret", "abstract": "Outside the folder."}) + "\n")
    folder = tmp_path / "in"
    (folder / "sub").mkdir(parents=True)
    (folder / "good.jsonl").write_text(json.dumps(_record(1)) + "\n")
    (folder / "secret.jsonl").symlink_to(secret)
    (folder / "passwd.txt").symlink_to("/etc/passwd")
    (folder / "environ.txt").symlink_to("/proc/self/environ")
    (folder / "secret-dir").symlink_to(outside, target_is_directory=True)
    (folder / "sub" / "inside.jsonl").symlink_to(folder / "good.jsonl")  # inside: read
    found = list(iter_input_files([folder]))
    read = sorted(p.name for p in found if isinstance(p, Path))
    refused = sorted(Path(p.file).name for p in found if isinstance(p, ReadProblem))
    assert read == ["good.jsonl", "inside.jsonl"], found
    assert {"secret.jsonl", "passwd.txt"} <= set(refused), found
    if Path("/proc/self/environ").exists():
        assert "environ.txt" in refused
    assert all("outside the folder given: not read" in p.reason for p in found if isinstance(p, ReadProblem))
    code, out = _ingest(tmp_path, capsys, str(folder))
    assert code == 1 and "secret.jsonl: symbolic link to" in out, out
    assert _papers(tmp_path, capsys) == 1
    # named on the command line, a link is read: the user chose it
    code, out = _ingest(tmp_path, capsys, str(folder / "secret.jsonl"))
    assert code == 0, out
    assert _papers(tmp_path, capsys) == 2
