"""``kg check --repair`` over every generated damage case: a store that passes ``kg check`` or a
clear refusal, never a traceback, and the damaged file always kept byte for byte.

The damage cases and the real pristine store come from ``test_damaged_store`` (a store built by
``kg ingest`` from ``tests/data``). ``REPAIR_OUTCOMES`` counts the outcome per case (printed
with ``-s``).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import subprocess
import sys
from collections import Counter
from contextlib import closing
from pathlib import Path

import pytest

from api.cli import main
from kg.stores.sqlite.repair import rebuild
from tests.unit import test_damaged_store
from tests.unit.test_damaged_store import CASES, DB

pristine = test_damaged_store.pristine  # the module-scoped fixture: a real store built by kg ingest

REPAIR_OUTCOMES: Counter[str] = Counter()
REPAIR_LINES: dict[str, str] = {}


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _export(data_dir: Path, out: Path) -> dict[str, object]:
    assert main(["export", "--data-dir", str(data_dir), "-o", str(out)]) == 0
    data: dict[str, object] = json.loads(out.read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("name", sorted(CASES))
def test_repair_gives_a_sound_store_or_a_clear_refusal(
    name: str, pristine: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data_dir = tmp_path / "kg"
    shutil.copytree(pristine, data_dir)
    db = data_dir / DB
    CASES[name](db)
    damaged = _digest(db)
    code = main(["check", "--repair", "--yes", "--data-dir", str(data_dir)])
    out, err = capsys.readouterr()
    assert code in (0, 1, 2), (name, code, out, err)  # 3 would be a bug (a traceback)
    assert "Traceback" not in out + err and not err.strip(), (name, err)
    backups = sorted(data_dir.glob(f"{DB}.damaged-*"))
    REPAIR_LINES[name] = out.splitlines()[-2 if code != 2 else -1].split(": ", 1)[-1]
    if code == 2:
        REPAIR_OUTCOMES["refused"] += 1
        lines = [line for line in out.splitlines() if line.strip()]
        assert len(lines) == 1 and "nothing can be saved" in lines[0] and str(db) in lines[0], (name, out)
        assert _digest(db) == damaged and not backups, (name, "a refused repair changed the store")
        assert not list(data_dir.glob(".repair-*")), "the work folder is removed"
        return
    REPAIR_OUTCOMES["repaired in full" if code == 0 else "repaired, rows left out"] += 1
    assert "rebuilt: saved" in out and "replaced; the damaged file is kept as" in out, (name, out)
    assert len(backups) == 1 and _digest(backups[0]) == damaged, (name, "the damaged file is kept as it was")
    checked = main(["check", "--data-dir", str(data_dir)])
    assert checked == 0, (name, capsys.readouterr().out)
    capsys.readouterr()
    assert main(["stats", "--json", "--data-dir", str(data_dir)]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats, name
    assert not list(data_dir.glob(".repair-*")), "the work folder is removed"


def test_a_store_damaged_only_in_its_meta_rows_is_rebuilt_whole(pristine: Path, tmp_path: Path) -> None:
    """A bad ``version`` row loses nothing: every node and relationship is read back."""
    data_dir = tmp_path / "kg"
    shutil.copytree(pristine, data_dir)
    before = _export(data_dir, tmp_path / "before.json")
    CASES["version text"](data_dir / DB)
    assert main(["check", "--repair", "--yes", "--data-dir", str(data_dir)]) == 0
    assert _export(data_dir, tmp_path / "after.json") == before


def test_a_sound_store_rebuilds_into_the_same_graph(pristine: Path, tmp_path: Path) -> None:
    data_dir = tmp_path / "kg"
    shutil.copytree(pristine, data_dir)
    rebuilt, salvage = rebuild(data_dir / DB, tmp_path / "work")
    assert not salvage.lost_any, salvage.summary()
    copy = tmp_path / "copy"
    copy.mkdir()
    shutil.copy(rebuilt, copy / DB)
    assert _export(copy, tmp_path / "b.json") == _export(data_dir, tmp_path / "a.json")
    vectors = "SELECT paper_id, vector, model FROM embeddings ORDER BY paper_id"
    with closing(sqlite3.connect(data_dir / DB)) as a, closing(sqlite3.connect(copy / DB)) as b:
        kept = a.execute(vectors).fetchall()
        assert kept and b.execute(vectors).fetchall() == kept  # similar, like and search need them
    query = (
        '{ search(text: "neural networks", first: 5) { paper { id } } '
        "concepts(first: 5) { nodes { name paperCount } } }"
    )
    answers = []
    for d in (data_dir, copy):
        r = subprocess.run(
            [str(Path(sys.executable).with_name("kg")), "query", "--data-dir", str(d), query],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert r.returncode == 0, r.stderr
        answers.append(json.loads(r.stdout))
    assert answers[0] == answers[1] and answers[0]["data"]["search"], answers


def test_a_sound_store_needs_no_repair(
    pristine: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data_dir = tmp_path / "kg"
    shutil.copytree(pristine, data_dir)
    before = _digest(data_dir / DB)
    assert main(["check", "--repair", "--data-dir", str(data_dir)]) == 0
    assert "ok, nothing to repair" in capsys.readouterr().out
    assert _digest(data_dir / DB) == before


def test_without_yes_and_no_terminal_nothing_is_replaced(pristine: Path, tmp_path: Path) -> None:
    data_dir = tmp_path / "kg"
    shutil.copytree(pristine, data_dir)
    CASES["middle page scribbled"](data_dir / DB)
    damaged = _digest(data_dir / DB)
    kg = Path(sys.executable).with_name("kg")
    r = subprocess.run(
        [str(kg), "check", "--repair", "--data-dir", str(data_dir)],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "add --yes" in r.stdout and "not replaced" in r.stdout, r.stdout
    assert _digest(data_dir / DB) == damaged and not list(data_dir.glob(f"{DB}.damaged-*"))


def test_yes_without_repair_is_a_usage_mistake(pristine: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--yes", "--data-dir", str(pristine)]) == 2
    assert "--yes goes with --repair" in capsys.readouterr().err


def test_zz_report_repair_outcomes() -> None:
    print("\nrepair over", len(CASES), "damage cases:", dict(sorted(REPAIR_OUTCOMES.items())))
    for name, line in sorted(REPAIR_LINES.items()):
        print(f"  {name}: {line}")
