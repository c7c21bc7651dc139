"""Print the most frequent author keywords of each dev set that no vocabulary concept resolves.

Issue 25's target: the 25 most frequent author keywords of every dev set (ICLR 2018, COLM 2024,
CoRL 2021-2025, 3DV 2025) resolve to a vocabulary concept, so ``concept(K)`` is never null for
them. A keyword resolves when its phrase key (the extractor's own tokenizer and
:func:`~kg.core.normalize.token_key`) is a name or alias of
``extractors/data/concepts.json``; its spelling variants (case, plural, hyphen) count together.

Usage::

    python scripts/check_dev_keywords.py [--data-dir ../shared/data] [--top 25]

Exit code 1 when any dev set has a miss (the list is the to-do for the vocabulary).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from spacy.tokenizer import Tokenizer  # noqa: E402

from extractors.concepts.vocabulary import Vocabulary, default_vocabulary, phrase_key  # noqa: E402
from kg.eval.dev_sets import DEV_FILES, SHARED_DATA  # noqa: E402
from kg.eval.evaluation import load_eval_papers  # noqa: E402
from kg.ingest.nlp import load_nlp  # noqa: E402


def top_keywords(path: Path, tokenizer: Tokenizer, top: int) -> list[tuple[tuple[str, ...], str, int]]:
    """(phrase key, most common spelling, papers) of a dev set's ``top`` keywords by papers."""
    papers = load_eval_papers(path)
    counts: Counter[tuple[str, ...]] = Counter()
    spellings: dict[tuple[str, ...], Counter[str]] = {}
    for paper in papers:
        seen: set[tuple[str, ...]] = set()
        for keyword in paper.keywords:
            key = phrase_key(tokenizer, keyword)
            if key and key not in seen:
                seen.add(key)
                counts[key] += 1
                spellings.setdefault(key, Counter())[keyword.strip()] += 1
    return [(k, spellings[k].most_common(1)[0][0], n) for k, n in counts.most_common(top)]


def misses(vocab: Vocabulary, keywords: list[tuple[tuple[str, ...], str, int]]) -> list[tuple[str, int]]:
    """The keywords no concept name or alias resolves."""
    return [(spelling, n) for key, spelling, n in keywords if key not in vocab.index]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=SHARED_DATA)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args(argv)
    tokenizer = load_nlp(mode="fast").tokenizer
    vocab = default_vocabulary(tokenizer)
    failed = False
    for name in DEV_FILES:
        path = args.data_dir / name
        if not path.is_file():
            print(f"{name}: not found under {args.data_dir}")
            failed = True
            continue
        missed = misses(vocab, top_keywords(path, tokenizer, args.top))
        failed = failed or bool(missed)
        shown = ", ".join(f"{s} ({n})" for s, n in missed) or "none"
        print(f"{name}: {args.top - len(missed)}/{args.top} resolve; misses: {shown}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
