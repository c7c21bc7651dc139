"""Build ``extractors/data/general_english.json``: how common each word is in general English.

Why: a phrase is a concept of its field when it is *specific*: "blockchain", "phishing",
"locomotion" are rare in everyday English, while "security issue", "user input" and "cost
efficiency" are made of words everybody uses. Measuring that against general English, not
against one venue's author keywords, works for any field (see
``extractors/concepts/specificity.py``).

Source: the ``wordfreq`` package's English list (Zipf scale: log10 of occurrences per billion
words; 3 = once per million words), a development dependency only: the extractor reads the
shipped table, never the package. Words are stored under their extractor key
(:func:`~kg.core.normalize.token_key`, so "contracts" and "contract" share one
entry, the higher value), as Zipf x 10 rounded, only for words at or above ``--min-zipf`` (an
absent word is rarer than that).

Usage::

    python scripts/build_general_english.py [--min-zipf 3.0] [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
from importlib.metadata import version
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from extractors.concepts.specificity import DEFAULT_GENERAL_ENGLISH  # noqa: E402
from kg.core.normalize import token_key  # noqa: E402

TOP_WORDS = 200_000


def build(min_zipf: float) -> dict[str, object]:
    """The table: ``{"provenance": ..., "zipf": {key: round(zipf * 10)}}``, keys sorted."""
    try:
        import wordfreq
    except ImportError as e:  # pragma: no cover - a developer tool
        raise SystemExit("needs the wordfreq package: pip install -e '.[dev]'") from e
    table: dict[str, int] = {}
    for word in wordfreq.top_n_list("en", TOP_WORDS):
        if not word.isalpha():
            continue
        zipf = wordfreq.zipf_frequency(word, "en")
        if zipf < min_zipf:
            break  # the list is in frequency order
        key = token_key(word)
        value = round(zipf * 10)
        if key and value > table.get(key, 0):
            table[key] = value
    return {
        "provenance": (
            f"wordfreq {version('wordfreq')} English list (Zipf x 10), words with Zipf >= {min_zipf}, "
            "keyed by kg.core.normalize.token_key; built by scripts/build_general_english.py"
        ),
        "min_zipf": min_zipf,
        "zipf": dict(sorted(table.items())),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--min-zipf", type=float, default=3.0)
    parser.add_argument("--out", type=Path, default=DEFAULT_GENERAL_ENGLISH)
    args = parser.parse_args(argv)
    data = build(args.min_zipf)
    args.out.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"{args.out}: {len(data['zipf'])} words")  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
