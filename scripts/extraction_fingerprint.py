"""A digest of what the extractors produce for every dev paper with an abstract (run by hand).

Why: a refactoring of the extractor must not change a single record. Run this before and after;
the digests must be identical. A deliberate change of behaviour changes the digest: say so in the
commit and record the new one.

Usage::

    python scripts/extraction_fingerprint.py [--data-dir ../shared/data] [--mode fast|accurate]
                                             [--limit N] [--show N]

Each paper's record (nodes, relationships and their properties; floats rounded to 6 places) is
serialised canonically (sorted) and hashed; a set's digest hashes its papers' digests in file
order, and the overall digest the sets' digests. ``--limit N`` takes the first N papers with an
abstract of each file (the accurate mode runs the parser and is much slower). ``--show N`` prints
the first N canonical records of each set, to see what differs between two runs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kg.core.models import PaperRecord, RawPaper  # noqa: E402
from kg.eval.dev_sets import DEV_FILES, SHARED_DATA  # noqa: E402
from kg.eval.evaluation import _records  # noqa: E402
from kg.ingest.nlp import Mode, load_nlp  # noqa: E402
from kg.ingest.pipeline import Pipeline  # noqa: E402


def dev_papers(path: Path, name: str, limit: int | None) -> list[RawPaper]:
    """The papers of one file with a non-empty abstract (title and abstract only: what the
    concept extractors read), in file order."""
    out: list[RawPaper] = []
    for n, (_, r) in enumerate(_records(path), start=1):
        if not isinstance(r, dict):
            continue
        abstract = r.get("abstract")
        if not isinstance(abstract, str) or not abstract.strip():
            continue
        title = r.get("title")
        out.append(
            RawPaper(file=name, line=n, abstract=abstract, title=title if isinstance(title, str) else None)
        )
        if limit is not None and len(out) >= limit:
            break
    return out


def canonical(value: object) -> object:
    """A property value with floats rounded (so a last-bit difference in a sum is not a change)."""
    if isinstance(value, float):
        return round(value, 6)
    if isinstance(value, list | tuple):
        return [canonical(v) for v in value]
    if isinstance(value, dict):
        return {str(k): canonical(v) for k, v in sorted(value.items())}
    return value


def record_text(record: PaperRecord) -> str:
    """One record as canonical JSON: nodes and relationships sorted, properties sorted."""
    nodes = sorted([n.id, n.label, canonical(n.properties)] for n in [record.paper, *record.nodes])
    rels = sorted([r.start, r.type, r.end, canonical(r.properties)] for r in record.relationships)
    return json.dumps({"nodes": nodes, "relationships": rels}, sort_keys=True, ensure_ascii=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=SHARED_DATA)
    parser.add_argument("--mode", choices=("fast", "accurate"), default="fast")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--show", type=int, default=0)
    args = parser.parse_args(argv)
    mode: Mode = args.mode
    pipeline = Pipeline(nlp=load_nlp(mode=mode), mode=mode)
    overall = hashlib.sha256()
    total = 0
    started = time.perf_counter()
    for name in DEV_FILES:
        papers = dev_papers(args.data_dir / name, name, args.limit)
        records, problems = pipeline.build(papers)
        if problems:
            print(f"{name}: {len(problems)} problem(s), first: {problems[0]}", file=sys.stderr)
        digest = hashlib.sha256()
        for n, record in enumerate(records):
            text = record_text(record)
            if n < args.show:
                print(text)
            digest.update(hashlib.sha256(text.encode("utf-8")).digest())
        overall.update(digest.digest())
        total += len(records)
        print(f"{name:34} {len(records):5} records  {digest.hexdigest()[:16]}")
    print(f"{'all (' + mode + ')':34} {total:5} records  {overall.hexdigest()}")
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
