"""Mine candidate vocabulary terms from author keywords in the shared paper data.

Dev tool used to curate ``extractors/data/concepts.json``. It reads the JSONL files
described in ``../shared/data/README.md``, normalises every author keyword
(lowercase, hyphens/whitespace collapsed, simple plural stripping), groups spelling
variants and prints the most frequent groups together with their surface forms.

With ``--vocabulary`` it also reports which frequent keywords are not yet covered by
the vocabulary (neither as a name nor as an alias), which is the to-do list for
curation.

Usage::

    python scripts/mine_keywords.py --top 400
    python scripts/mine_keywords.py --uncovered --vocabulary extractors/data/concepts.json
    python scripts/mine_keywords.py --grep bandit
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    # mypy checks scripts/ from the repo root, where the validator is scripts.check_vocabulary.
    from scripts.check_vocabulary import normalise
else:
    # One comparison key for both dev tools: the validator's (scripts/ is on sys.path when run).
    from check_vocabulary import normalise

DEFAULT_DATA_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data"
# iclr2017 keywords are a fixed list of 15 areas and icml2025-meta has no keywords.
DEFAULT_FILES = ("neurips2023-meta.jsonl", "iclr2018.jsonl", "colm2024.jsonl")


def iter_keywords(paths: Iterable[Path]) -> Iterator[tuple[str, str]]:
    """Yield ``(file name, keyword)`` for every author keyword in the given files."""
    for path in paths:
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                if not line.strip():
                    continue
                record = json.loads(line)
                for keyword in record.get("keywords") or []:
                    if isinstance(keyword, str) and keyword.strip():
                        yield path.name, keyword.strip()


def load_vocabulary_keys(path: Path) -> set[str]:
    """Return the normalised names and aliases of an existing vocabulary file."""
    payload = json.loads(path.read_text(encoding="utf-8"))
    keys: set[str] = set()
    for concept in payload.get("concepts", []):
        keys.add(normalise(concept["name"]))
        keys.update(normalise(alias) for alias in concept.get("aliases", []))
    return keys


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    parser.add_argument("--files", nargs="*", default=list(DEFAULT_FILES))
    parser.add_argument("--top", type=int, default=300, help="number of groups to print")
    parser.add_argument("--min-count", type=int, default=2, help="minimum group frequency")
    parser.add_argument("--grep", default=None, help="only groups whose key contains this")
    parser.add_argument("--vocabulary", type=Path, default=None, help="concepts.json to compare")
    parser.add_argument(
        "--uncovered",
        action="store_true",
        help="only print groups not covered by --vocabulary",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Print frequent keyword groups (optionally only those missing from the vocabulary)."""
    args = parse_args(argv)
    paths = [args.data_dir / name for name in args.files]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        print(f"error: data file(s) not found: {', '.join(missing)}", file=sys.stderr)  # noqa: T201
        return 2

    counts: Counter[str] = Counter()
    surfaces: defaultdict[str, Counter[str]] = defaultdict(Counter)
    sources: defaultdict[str, Counter[str]] = defaultdict(Counter)
    for source, keyword in iter_keywords(paths):
        key = normalise(keyword)
        if not key:
            continue
        counts[key] += 1
        surfaces[key][keyword] += 1
        sources[key][source.split(".")[0]] += 1

    covered: set[str] = set()
    if args.vocabulary is not None:
        covered = load_vocabulary_keys(args.vocabulary)

    shown = 0
    for key, count in counts.most_common():
        if count < args.min_count or shown >= args.top:
            break
        if args.grep and args.grep.lower() not in key:
            continue
        if args.uncovered and key in covered:
            continue
        mark = "+" if key in covered else " "
        variants = " | ".join(s for s, _ in surfaces[key].most_common(4))
        where = ",".join(f"{s}:{n}" for s, n in sources[key].most_common())
        print(f"{count:5d} {mark} {key:<45} [{where}] {variants}")  # noqa: T201
        shown += 1

    total = sum(counts.values())
    summary = f"# {len(counts)} distinct keyword groups, {total} keyword occurrences"
    if covered:
        hit = sum(n for k, n in counts.items() if k in covered)
        summary += f"; vocabulary covers {hit}/{total} occurrences ({hit / total:.1%})"
    print(summary)  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
