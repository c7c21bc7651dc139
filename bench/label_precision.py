"""Precision of concept -> papers against the hand labels, with today's extractor.

Usage::

    python bench/label_precision.py [--data-dir ../shared/data] [--labels bench/labels/concept_links.jsonl]

Why: ``bench/labels/concept_links.jsonl`` holds concept -> paper links from the dev data that
were judged by reading the abstract (``about``: the paper is about the concept; ``passing``:
it only mentions it; ``wrong``: it is not the concept at all). The extractor changes; the
labels do not. So this re-extracts the labelled papers (fast mode, the default pipeline, the
whole file each paper comes from, so the provisional-concept and vocabulary context is the
one an ingest of that file gives) and asks, for every label, whether ``concept.papers`` would
list the paper today: an ``about`` MENTIONS of the concept or of a concept below it (BROADER
closure), the API's default.

Prints, per concept and overall: labels, links still listed, and of those the share judged
about / passing / wrong. Precision is ``about / listed``. Labels no longer listed are counted
apart: dropping a ``passing`` link is the point of the salience, dropping an ``about`` one is
lost recall.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg.core.ids import concept_id  # noqa: E402
from kg.core.models import PaperRecord  # noqa: E402
from kg.eval.concept_quality import climbs, narrower_closure  # noqa: E402
from kg.ingest.nlp import load_nlp  # noqa: E402
from kg.ingest.pipeline import Pipeline  # noqa: E402
from kg.readers import read_file  # noqa: E402

DEFAULT_DATA_DIR = ROOT.parent / "shared" / "data"
DEFAULT_LABELS = ROOT / "bench" / "labels" / "concept_links.jsonl"
JUDGEMENTS = ("about", "passing", "wrong")


def listed(record: PaperRecord, own: str, targets: set[str]) -> bool:
    """Whether ``concept.papers`` (about only, the default) lists this paper for ``own`` and the
    concepts below it (``targets``): a link marked ``climbs: false`` counts for its own concept
    only (``PaperQuery.narrower``)."""
    return any(
        rel.type == "MENTIONS" and rel.end in targets and rel.properties.get("about") and climbs(rel, own)
        for rel in record.relationships
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    p.add_argument("--labels", type=Path, default=DEFAULT_LABELS)
    args = p.parse_args()

    labels = [json.loads(line) for line in args.labels.read_text().splitlines() if line.strip()]
    # (file name as the labels give it, paper), in reading order: one extraction of every file.
    papers = [
        (name, raw)
        for name in sorted({lab["file"] for lab in labels})
        for raw in read_file(args.data_dir / name).papers
    ]
    pipeline = Pipeline(nlp=load_nlp(mode="fast"), mode="fast")
    records, _ = pipeline.build([raw for _, raw in papers])
    by_paper = {(name, raw.external_id): rec for (name, raw), rec in zip(papers, records, strict=True)}
    closure = narrower_closure(records)

    rows: dict[str, Counter[tuple[str, bool]]] = defaultdict(Counter)
    missing: list[str] = []
    for lab in labels:
        rec = by_paper.get((lab["file"], lab["paper"]))
        if rec is None:
            missing.append(f"{lab['file']}:{lab['paper']}")
            continue
        cid = concept_id(lab["concept"])
        shown = listed(rec, cid, closure.get(cid, {cid}))
        rows[lab["concept"]][(lab["label"], shown)] += 1

    print(f"labels: {len(labels)} from {args.labels.name}; papers extracted: {len(records)} (fast mode)")
    if missing:
        print(f"labelled papers not found in the data: {len(missing)}: {missing[:5]}")
    cols = ("labels", "listed", "about", "passing", "wrong", "precision")
    print(f"{'concept':44} " + " ".join(f"{c:>{max(len(c), 6)}}" for c in cols))
    total: Counter[tuple[str, bool]] = Counter()
    for concept in sorted(rows):
        c = rows[concept]
        total.update(c)
        print(line(concept, c))
    print(line("all", total))
    dropped = {j: total[(j, False)] for j in JUDGEMENTS}
    print(f"labels no longer listed: {dropped} (load average {os.getloadavg()[0]:.1f})")


def line(name: str, c: Counter[tuple[str, bool]]) -> str:
    n = sum(c.values())
    shown = {j: c[(j, True)] for j in JUDGEMENTS}
    k = sum(shown.values())
    prec = f"{shown['about'] / k:.1%}" if k else "-"
    wrong = f"{shown['wrong'] / k:.1%}" if k else "-"
    return (
        f"{name:44} {n:>6} {k:>6} {shown['about']:>6} {shown['passing']:>7} {shown['wrong']:>6} "
        f"{prec:>9}  (wrong {wrong})"
    )


if __name__ == "__main__":
    main()
