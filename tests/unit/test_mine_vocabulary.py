"""scripts/mine_vocabulary.py as a reviewer runs it: listing files in, candidate entries out."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def listing(folder: Path, venue: str, records: list[dict[str, str]]) -> Path:
    """A paperlists-format file (keywords one ``;``-separated string) under ``folder/venue``."""
    path = folder / venue / f"{venue}2025.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def mine(*args: str) -> tuple[dict[str, dict[str, Any]], str]:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "mine_vocabulary.py"), *args],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    entries = [json.loads(line) for line in done.stdout.splitlines()]
    return {e["name"]: e for e in entries}, done.stderr


def test_frequent_unknown_keywords_become_candidate_entries(tmp_path: Path) -> None:
    robotics = listing(
        tmp_path,
        "corl",
        [
            {
                "id": "a",
                "title": "Pushing Granular Media",
                "abstract": "We push granular media (GM) with a legged robot.",
                "keywords": "Granular Media; Grasping; Machine Learning: ML: Federated learning",
            },
            {
                "id": "b",
                "title": "Scooping",
                "abstract": "A robot scoops sand.",
                "keywords": "granular media; Bimanual Loco-Manipulation",
            },
            {
                "id": "c",
                "title": "Two Arms on Legs",
                "abstract": "We study bimanual loco-manipulation on a quadruped.",
                "keywords": "Bimanual Loco-Manipulation",
            },
        ],
    )
    # The same paper in a second file counts once.
    copy = tmp_path / "copy.jsonl"
    copy.write_text(
        json.dumps(
            {
                "id": "c",
                "title": "Two Arms on Legs",
                "abstract": "",
                "keywords": ["Bimanual Loco-Manipulation"],
            }
        )
        + "\n",
        encoding="utf-8",
    )
    found, log = mine(str(robotics), str(copy), "--min-papers", "2")
    assert "3 papers with keywords" in log
    media = found["granular media"]
    assert (media["papers"], media["domains"], media["present"]) == (2, {"robotics": 2}, 0.5)
    assert "GM" in media["aliases"]
    loco = found["bimanual loco-manipulation"]
    assert (loco["kind"], loco["broader"], loco["papers"]) == ("TASK", ["loco-manipulation"], 2)
    # Known to the vocabulary, or a venue's track label: not a candidate.
    assert "grasping" not in found
    assert not any("federated" in name for name in found)
