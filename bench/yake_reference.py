"""Reproduce the README's YAKE reference figures with kg.eval.evaluation.

Usage::

    python bench/yake_reference.py [--limit 300] [--data-dir ../shared/data]

Runs YAKE 0.7.3 (defaults, n=3, top 10, on title + ". " + abstract) on iclr2018.jsonl
(first ``--limit`` papers by id; ``--limit 0`` = all) and on all of colm2024.jsonl, and
prints one table per file next to the README's figures. If our numbers drift from those
by more than ~0.3 points, the scorer (tokenisation, dedupe, paper selection) changed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kg.eval.evaluation import format_table, load_eval_papers, run_timed, yake_predict  # noqa: E402

DEFAULT_DATA_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data"

# README "Evaluation protocol": (F1@5, F1@10) for YAKE 0.7.3 defaults, top 10.
# Key: (file, limit), limit None = the full file.
README_FIGURES: dict[tuple[str, int | None], tuple[float, float]] = {
    ("iclr2018.jsonl", 300): (14.5, 14.3),  # first 300 papers by id
    ("iclr2018.jsonl", None): (15.2, 14.9),
    ("colm2024.jsonl", None): (12.8, 13.5),
}
TOLERANCE = 0.3


def main(argv: list[str] | None = None) -> int:
    """Run the reference check; return 1 if a figure is off by more than the tolerance."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--limit",
        type=int,
        default=300,
        help="ICLR 2018: first N papers by id (0 = all); COLM 2024 is always the full file",
    )
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    args = parser.parse_args(argv)
    if args.limit < 0:
        parser.error("--limit must be >= 0")
    iclr_limit = args.limit or None

    # Warm up: import yake and build its stopword tables outside the timed runs, so
    # papers/s measures steady-state extraction rather than a one-off import.
    warm = load_eval_papers(args.data_dir / "colm2024.jsonl", limit=1)
    yake_predict(warm)

    ok = True
    for name, limit in (("iclr2018.jsonl", iclr_limit), ("colm2024.jsonl", None)):
        papers = load_eval_papers(args.data_dir / name, limit=limit)
        row = run_timed("yake", yake_predict, papers)
        subset = f"first {limit} by id" if limit else "all"
        print(f"== {name} ({subset}: {len(papers)} papers with abstract + keywords)")
        print(format_table([row]))
        print(
            f"({row.seconds:.1f} s; present-only F1@10 averaged over "
            f"{row.scores.n_present_papers} papers with present gold)"
        )
        expected = README_FIGURES.get((name, limit))
        if expected is not None:
            got = (row.scores.f1_at_5, row.scores.f1_at_10)
            delta = max(abs(g - e) for g, e in zip(got, expected, strict=True))
            verdict = "OK" if delta <= TOLERANCE else "MISMATCH"
            ok = ok and delta <= TOLERANCE
            print(
                f"README F1@5 {expected[0]:.1f} / F1@10 {expected[1]:.1f}; "
                f"got {got[0]:.2f} / {got[1]:.2f} -> {verdict} (max delta {delta:.2f})"
            )
        else:
            print("README has no reference figure for this subset")
        print()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
