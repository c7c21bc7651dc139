"""The dev sets that concept measurements read, named once: the training scripts, the
fingerprint and the keyword checks must all mean the same papers, or their figures stop
comparing."""

from __future__ import annotations

from pathlib import Path

# The shared data folder beside a checkout (``../shared/data``): only a default, every script
# that reads it takes ``--data-dir``.
SHARED_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"

# Dev sets with abstracts and free author keywords, by name; files relative to the data folder.
DEV_SETS: dict[str, tuple[str, ...]] = {
    "ICLR 2018": ("iclr2018.jsonl",),
    "COLM 2024": ("colm2024.jsonl",),
    "CoRL 2021-2025": tuple(f"paperlists/corl/corl{y}.json" for y in range(2021, 2026)),
    "3DV 2025": ("paperlists/3dv/3dv2025.json",),
}
DEV_FILES: tuple[str, ...] = tuple(f for files in DEV_SETS.values() for f in files)
